/// Placeholder until the module has its first type.
enum WirelensStoreModule {}
