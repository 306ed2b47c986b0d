import MCloudHTTP
import Testing

@Suite struct LibraryVersionsTests {
    @Test func linkedLibrariesReportTheirVersions() {
        #expect(HTTPLibraryVersions.curl.first?.isNumber == true)
        #expect(HTTPLibraryVersions.openSSL.hasPrefix("OpenSSL "))
    }
}
