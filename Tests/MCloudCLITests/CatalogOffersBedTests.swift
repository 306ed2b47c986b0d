import Testing

/// `mcloud catalog offers` against the beds' APIs: Trove's datastores on the OpenStack bed
/// (scripts/testbed/openstack.sh), RDS on moto (scripts/testbed/moto.sh). Fail, never skip, without the beds.
@Suite struct CatalogOffersBedTests {
    /// The bed's Trove has mysql 5.7.29, postgresql 16 and redis 7.2 (scripts/testbed/openstack_setup.py); sel-msk's
    /// catalog entry lists Selectel's own series.
    @Test func troveDatastoresAreSetBesideTheCatalogsSeries() async throws {
        let bed = try OpenStackBed()
        let run = await mcloudRun(["catalog", "offers", "--providers", "\(bed.folder)/providers", "--cloud", "sel-msk", "--detailed-exitcode"], environment: bed.environment)
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout == """
            sel-msk: Trove GET /datastores
              ENGINE      CATALOG         API  DIFFERENCE
              postgresql  14, 15, 16, 17  16   listed, not sold: 14, 15, 17
              mysql       8.0             5.7  listed, not sold: 8.0; sold, not listed: 5.7
              redis       7.2             7.2  in step
              as the API sells it: dbaas: { postgresql: ["16"], mysql: ["5.7"], redis: ["7.2"] }

            1 of 1 cloud read differs from the catalog.

            """)
    }

    /// moto 5.2.5 answers DescribeDBEngineVersions with HTTP 500 (the action is not implemented there): the request
    /// is signed and sent, and the cloud is reported unread, naming the operation, never taken as selling nothing.
    @Test func anRDSThatCannotListItsVersionsLeavesTheCloudUnread() async throws {
        let workspace = try AWSWorkspace()
        let run = await mcloudRun(["catalog", "offers", "--providers", "\(workspace.folder)/providers", "--cloud", "aws-fra"], environment: workspace.environment)
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasPrefix("aws-fra: not read: listing RDS's postgres versions in aws-fra: "), "\(run.stdout)")
        #expect(run.stdout.contains("rds DescribeDBEngineVersions"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("\n\nNo cloud could be read.\n"), "\(run.stdout)")
    }
}
