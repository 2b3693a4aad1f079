import XCTest

/// Placeholder until the target has its first test.
final class WirelensStoreTestsPlaceholder: XCTestCase {}
