import MCloudCore
import Testing

@Suite struct QuantityTests {
    @Test(arguments: [
        ("500m", 500), ("2", 2000), ("1.5", 1500), ("0.25", 250), ("+1", 1000), ("100m", 100), ("1e1", 10_000), ("0", 0),
    ])
    func cpuQuantitiesParseToMillicores(_ text: String, _ millicores: Int) {
        #expect(CPUQuantity.parse(text) == .success(CPUQuantity(millicores: millicores)))
    }

    @Test(arguments: [
        ("500x", QuantityError.unit("500x", "cpu takes no unit but m (millicores): write 500m or 2")),
        ("-1", .negative("-1")),
        ("1.5m", .precision("1.5m", "cpu is counted in whole millicores; 1m is the smallest step")),
        ("", .syntax("")),
        ("m", .syntax("m")),
        ("1..2", .syntax("1..2")),
        ("2Gi", .unit("2Gi", "cpu takes no unit but m (millicores): write 500m or 2")),
    ])
    func badCPUQuantitiesSayWhatIsWrong(_ text: String, _ error: QuantityError) {
        #expect(CPUQuantity.parse(text) == .failure(error))
    }

    @Test(arguments: [
        ("512Mi", 512 << 20), ("4Gi", 4 << 30), ("1G", 1_000_000_000), ("1k", 1000), ("1Ki", 1024), ("1.5Gi", 3 << 29),
        ("1024", 1024), ("2Ti", 2 << 40), ("129e6", 129_000_000),
    ])
    func memoryQuantitiesParseToBytes(_ text: String, _ bytes: Int) {
        #expect(MemoryQuantity.parse(text) == .success(MemoryQuantity(bytes: bytes)))
    }

    @Test(arguments: [
        ("512m", QuantityError.unit("512m", "memory in m means thousandths of a byte; did you mean 512Mi?")),
        ("4GB", .unit("4GB", "memory units are Ki, Mi, Gi, Ti (binary) or k, M, G, T (decimal)")),
        ("-1Gi", .negative("-1Gi")),
        ("0.5", .precision("0.5", "memory must come to a whole number of bytes")),
        ("99999999999999999999Gi", .tooLarge("99999999999999999999Gi")),
        ("9000000000Ei", .tooLarge("9000000000Ei")), ("0.5m", .unit("0.5m", "memory in m means thousandths of a byte; did you mean 0.5Mi?")),
    ])
    func badMemoryQuantitiesSayWhatIsWrong(_ text: String, _ error: QuantityError) {
        #expect(MemoryQuantity.parse(text) == .failure(error))
    }

    @Test func quantitiesPrintInKubernetesForm() {
        #expect(CPUQuantity(millicores: 500).description == "500m")
        #expect(CPUQuantity(millicores: 2000).description == "2")
        #expect(MemoryQuantity(bytes: 512 << 20).description == "512Mi")
        #expect(MemoryQuantity(bytes: 1000).description == "1000")
    }

    @Test(arguments: [("0.67", 4, 2), ("0.29", 100, 29), ("0.5", 3, 1), ("1", 7, 7), ("0.333", 3, 0)])
    func sharesAreExactDecimals(_ text: String, _ replicas: Int, _ floor: Int) throws {
        let ratio = try #require(Ratio(decimal: text))
        #expect(ratio.floorOfProduct(replicas) == floor)
    }
}
