/// The capture's results (`CaptureReport` and the values it holds) are what this module produces: its clients
/// get the model module with it.
@_exported import WirelensCaptureModel
