/// The version of Wirelens itself.
public enum WirelensVersion {
    public static let current = "0.1.0"
}
