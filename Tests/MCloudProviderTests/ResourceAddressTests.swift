import MCloudProvider
import Testing

@Suite struct ResourceAddressTests {
    @Test func theBuiltInFormatsAreDocsEngineMds() {
        #expect(ResourceAddress(provider: .openstack, cloud: "sel-msk", kind: .managedDatabase, name: "retail-bank-ru.accounts-db")
            == "openstack.sel-msk.ManagedDatabase.retail-bank-ru.accounts-db")
        #expect(ResourceAddress.kubernetes(cloud: "vk-msk", apiVersion: "apps/v1", kind: .deployment, namespace: "retail-bank-ru", name: "payments-api")
            == "kubernetes.vk-msk.apps/v1.Deployment.retail-bank-ru.payments-api")
        #expect(ResourceAddress.kubernetes(cloud: "vk-msk", apiVersion: "v1", kind: .namespace, namespace: "", name: "retail-bank-ru")
            == "kubernetes.vk-msk.v1.Namespace.retail-bank-ru")
    }

    @Test("an address names its provider, cloud and kind", arguments: [
        ("kubernetes.vk-msk.apps/v1.Deployment.retail-bank-ru.payments-api", "kubernetes", "vk-msk", "Deployment"),
        ("kubernetes.vk-msk.networking.k8s.io/v1.Ingress.retail-bank-ru.web", "kubernetes", "vk-msk", "Ingress"),
        ("kubernetes.lab.v1.Namespace.shop", "kubernetes", "lab", "Namespace"),
        ("openstack.vk-msk.DatabaseServer.retail-bank-ru.accounts-db.0", "openstack", "vk-msk", "DatabaseServer"),
        ("aws.aws-irl.BackupBucket.retail-bank-eu.accounts-db", "aws", "aws-irl", "BackupBucket"),
        ("cdn.gcore-lux.CDNResource.retail-bank.static-eu", "cdn", "gcore-lux", "CDNResource"),
        ("memory", "memory", "", ""),
    ])
    func parts(_ text: String, _ provider: String, _ cloud: String, _ kind: String) {
        let address = ResourceAddress(text)
        #expect(address.provider == ProviderName(provider))
        #expect(address.cloud == cloud)
        #expect(address.kind == ResourceKind(kind))
    }

    @Test func addressesSortAndPrintAsTheirText() {
        let addresses: [ResourceAddress] = ["openstack.b.Volume.x", "aws.a.Volume.x", "kubernetes.a.v1.Namespace.x"]
        #expect(addresses.sorted().map(\.description) == ["aws.a.Volume.x", "kubernetes.a.v1.Namespace.x", "openstack.b.Volume.x"])
    }
}
