import MCloudCore
import MCloudDatabaseEngines
import MCloudYAML

extension Decoder {
    func cloud(_ spec: YAMLNode, _ metadata: Metadata) -> Cloud? {
        let keys = ["vendor", "api", "jurisdiction", "region", "zones", "offers", "capacity", "pricing", "latencyMs", "cloudLatencyMs", "endpoints", "vm"]
        let required = ["vendor", "api", "jurisdiction", "region", "offers", "capacity", "pricing"]
        guard let fields = mapping(spec, "spec", keys: keys, required: required) else { return nil }
        let vendor = fields["vendor"].flatMap { name($0, "spec.vendor") }
        let api = fields["api"].flatMap { choice($0, "spec.api", as: Cloud.API.self) }
        let jurisdiction = fields["jurisdiction"].flatMap { tags($0, "spec.jurisdiction", nonEmpty: true) }
        let region = fields["region"].flatMap { nonEmptyString($0, "spec.region") }
        let zones = fields["zones"].map { strings($0, "spec.zones") } ?? []
        let offers = fields["offers"].flatMap { self.offers($0) }
        let capacity = fields["capacity"].flatMap { self.capacity($0) }
        let pricing = fields["pricing"].flatMap { self.pricing($0, offers: offers) }
        var latency: [String: Double] = [:]
        for entry in fields["latencyMs"].flatMap({ dictionary($0, "spec.latencyMs") }) ?? [] {
            if let problem = Names.dnsLabelProblem(entry.key) {
                error(entry.keyNode.location, "spec.latencyMs: \"\(entry.key)\" is not an audience name: \(problem)")
            } else if let value = number(entry.value, entry.path) {
                latency[entry.key] = value
            }
        }
        var cloudLatency: [String: Double] = [:]
        for entry in fields["cloudLatencyMs"].flatMap({ dictionary($0, "spec.cloudLatencyMs") }) ?? [] {
            if let problem = Names.dnsLabelProblem(entry.key) {
                error(entry.keyNode.location, "spec.cloudLatencyMs: \"\(entry.key)\" is not a cloud name: \(problem)")
            } else if entry.key == metadata.name {
                error(entry.keyNode.location, "spec.cloudLatencyMs: \"\(entry.key)\" is this cloud; its latency to itself is 0")
            } else if let value = number(entry.value, entry.path) {
                cloudLatency[entry.key] = value
            }
        }
        let endpoints = fields["endpoints"].flatMap { self.endpoints($0) } ?? Cloud.Endpoints()
        var vm: (image: VMImage?, encryptedVolumeType: String?) = (nil, nil)
        var vmValid = true
        if let node = fields["vm"] {
            if let decoded = self.vm(node, api: api) { vm = decoded } else { vmValid = false }
        }
        guard let vendor, let api, let jurisdiction, let region, let zones, let offers, let capacity, let pricing, vmValid else { return nil }
        return Cloud(
            name: metadata.name, vendor: vendor, api: api, jurisdiction: jurisdiction, region: region, zones: zones,
            offers: offers, capacity: capacity, pricing: pricing, latencyMs: latency, cloudLatencyMs: cloudLatency, endpoints: endpoints,
            vmImage: vm.image, vmEncryptedVolumeType: vm.encryptedVolumeType, location: metadata.location
        )
    }

    private func offers(_ node: YAMLNode) -> Cloud.Offers? {
        guard let fields = mapping(node, "spec.offers", keys: ["kubernetes", "vm", "dbaas", "objectStorage", "cdn"]) else { return nil }
        var offers = Cloud.Offers()
        var valid = true
        func flag(_ key: String) -> Bool {
            guard let node = fields[key] else { return false }
            guard let value = bool(node, fields.path(key)) else {
                valid = false
                return false
            }
            return value
        }
        offers.kubernetes = flag("kubernetes")
        offers.vm = flag("vm")
        offers.objectStorage = flag("objectStorage")
        if let node = fields["dbaas"] {
            if let (engines, versions) = managedEngines(node, "spec.offers.dbaas") {
                offers.dbaas = engines
                offers.dbaasVersions = versions
            } else {
                valid = false
            }
        }
        if let node = fields["cdn"] {
            if let cdn = mapping(node, "spec.offers.cdn", keys: ["pops"], required: ["pops"]),
               let pops = cdn["pops"].flatMap({ tags($0, "spec.offers.cdn.pops", nonEmpty: true) }) {
                offers.cdnPops = pops
            } else {
                valid = false
            }
        }
        return valid ? offers : nil
    }

    /// `spec.vm`: the image (nil: the API's standard one) and, on OpenStack, the encrypted Cinder volume type of the
    /// database VMs' volumes (docs/security.md, M6).
    private func vm(_ node: YAMLNode, api: Cloud.API?) -> (image: VMImage?, encryptedVolumeType: String?)? {
        guard let vm = mapping(node, "spec.vm", keys: ["image", "encryptedVolumeType"]) else { return nil }
        var valid = true
        var volumeType: String?
        if let typeNode = vm["encryptedVolumeType"] {
            if let value = nonEmptyString(typeNode, vm.path("encryptedVolumeType")), api != .aws {
                volumeType = value
            } else {
                if api == .aws {
                    error(typeNode.location, "\(vm.path("encryptedVolumeType")): names a Cinder volume type, which only an OpenStack cloud has; an AWS cloud encrypts every EBS volume already")
                }
                valid = false
            }
        }
        let image = vm["image"].map { self.image($0, api: api) }
        guard valid, image != .some(nil) else { return nil }
        return (image ?? nil, volumeType)
    }

    /// `spec.vm.image`: the family the engine catalog has recipes for, and how the provider finds the image: `id`, or
    /// `name` (on AWS with `owner`), or on OpenStack Glance `properties` (with `owner`, the Glance project whose images
    /// count instead of public ones); without a way to find it, the API's standard one for Debian 12.
    private func image(_ imageNode: YAMLNode, api: Cloud.API?) -> VMImage? {
        guard let image = mapping(imageNode, "spec.vm.image", keys: ["family", "id", "name", "owner", "properties"], required: ["family"]) else { return nil }
        var valid = true
        var family: String?
        if let node = image["family"], let value = string(node, image.path("family")) {
            if ImageFamily(rawValue: value) != nil {
                family = value
            } else {
                let known = ImageFamily.allCases.map(\.rawValue)
                error(node.location, "\(image.path("family")): \"\(value)\" is no image family the engine catalog has recipes for; use one of \(known.joined(separator: ", "))" + Suggestion.didYouMean(value, in: known))
            }
        }
        func text(_ key: String) -> String? {
            guard let node = image[key] else { return nil }
            guard let value = nonEmptyString(node, image.path(key)) else {
                valid = false
                return nil
            }
            return value
        }
        let id = text("id"), name = text("name"), owner = text("owner")
        var properties: [String: String] = [:]
        if let node = image["properties"] {
            for entry in dictionary(node, image.path("properties")) ?? [] {
                if let value = string(entry.value, entry.path) { properties[entry.key] = value } else { valid = false }
            }
        }
        if let node = image["properties"], api == .aws {
            error(node.location, "\(image.path("properties")): only an OpenStack cloud finds its image by Glance properties; an AWS cloud uses id, or name and owner")
            valid = false
        }
        guard valid, let family, let api else { return nil }
        guard id != nil || name != nil || !properties.isEmpty else {
            var standard = VMImage.standard(for: api)
            standard.family = family
            // On OpenStack the owner says whose images with the standard properties count (ImageChoice).
            if api == .openstack, let owner { standard.owner = owner }
            if family != "debian-12" {
                error(imageNode.location, "spec.vm.image: a \(family) image needs \(api == .openstack ? "id, name or properties" : "id, or name and owner") to be found; only Debian 12 has a standard one")
                return nil
            }
            return standard
        }
        return VMImage(family: family, id: id, name: name, owner: owner, properties: properties)
    }

    /// A trillion vCPU or GiB: beyond any cloud, and small enough that a count of copies stays a whole number.
    static let capacityLimit = 1e12

    private func capacity(_ node: YAMLNode) -> Cloud.Capacity? {
        let keys = ["vcpu", "memoryGiB", "storageGiB"]
        guard let fields = mapping(node, "spec.capacity", keys: keys, required: keys) else { return nil }
        let vcpu = fields["vcpu"].flatMap { number($0, "spec.capacity.vcpu") }
        let memory = fields["memoryGiB"].flatMap { number($0, "spec.capacity.memoryGiB") }
        let storage = fields["storageGiB"].flatMap { number($0, "spec.capacity.storageGiB") }
        guard let vcpu, let memory, let storage else { return nil }
        var bounded = true
        for (key, value) in [("vcpu", vcpu), ("memoryGiB", memory), ("storageGiB", storage)] where value > Self.capacityLimit {
            // The planner counts copies of a placement that fit in a capacity as whole numbers, so the bound is far below Int.max.
            if let node = fields[key] {
                error(node.location, "spec.capacity.\(key): \(node.scalar?.value ?? String(value)) is more than any cloud holds; at most \(Int(Self.capacityLimit)) is accepted")
            }
            bounded = false
        }
        guard bounded else { return nil }
        return Cloud.Capacity(vcpu: vcpu, memoryGiB: memory, storageGiB: storage)
    }

    /// Every capability the cloud offers must be priced, so no cost is ever a silent zero (docs/planner.md, precise semantics 9).
    private func pricing(_ node: YAMLNode, offers: Cloud.Offers?) -> Cloud.Pricing? {
        let prices = ["vcpuHour", "memoryGiBHour", "storageGiBMonth", "objectStorageGiBMonth", "egressGiB", "cdnGiB"]
        guard let fields = mapping(node, "spec.pricing", keys: ["currency"] + prices, required: ["currency", "egressGiB"]) else { return nil }
        let currency = fields["currency"].flatMap { self.currency($0, "spec.pricing.currency") }
        var values: [String: Double] = [:]
        var valid = currency != nil
        for key in prices {
            guard let node = fields[key] else { continue }
            if let value = number(node, fields.path(key)) { values[key] = value } else { valid = false }
        }
        if let offers {
            var needed: [(String, String)] = []
            // A managed engine is priced like a VM (docs/planner.md's database cost), so dbaas needs the same prices.
            if offers.kubernetes || offers.vm || !offers.dbaas.isEmpty {
                let reason = offers.kubernetes ? "kubernetes" : offers.vm ? "vm" : "dbaas"
                needed += [("vcpuHour", reason), ("memoryGiBHour", reason)]
            }
            if offers.vm || !offers.dbaas.isEmpty { needed.append(("storageGiBMonth", offers.vm ? "vm" : "dbaas")) }
            if offers.objectStorage { needed.append(("objectStorageGiBMonth", "objectStorage")) }
            if offers.cdnPops != nil { needed.append(("cdnGiB", "cdn")) }
            for (key, reason) in needed where fields[key] == nil {
                error(node.location, "spec.pricing: missing \"\(key)\"; the cloud offers \(reason), so it must price it")
                valid = false
            }
        }
        guard valid, let currency else { return nil }
        return Cloud.Pricing(
            currency: currency, vcpuHour: values["vcpuHour"], memoryGiBHour: values["memoryGiBHour"],
            storageGiBMonth: values["storageGiBMonth"], objectStorageGiBMonth: values["objectStorageGiBMonth"],
            egressGiB: values["egressGiB"], cdnGiB: values["cdnGiB"]
        )
    }

    private func endpoints(_ node: YAMLNode) -> Cloud.Endpoints? {
        let keys = ["openstack", "kubernetes", "cdn", "objectStorage", "aws"]
        guard let fields = mapping(node, "spec.endpoints", keys: keys) else { return nil }
        var endpoints = Cloud.Endpoints()
        func entry(_ key: String, _ keys: [String], required: [String]) -> Fields? {
            fields[key].flatMap { mapping($0, fields.path(key), keys: keys, required: required) }
        }
        if let openstack = entry("openstack", ["cloud"], required: ["cloud"]) {
            endpoints.openstackCloud = openstack["cloud"].flatMap { nonEmptyString($0, openstack.path("cloud")) }
        }
        let kubernetesKeys = ["context", "kubeconfig", "egressCIDRs", "clusterSet", "server", "argocdCluster", "fluxKubeConfigSecret", "fluxKubeConfigKey", "ageRecipient"]
        if let kubernetes = entry("kubernetes", kubernetesKeys, required: ["context"]) {
            endpoints.kubernetesContext = kubernetes["context"].flatMap { nonEmptyString($0, kubernetes.path("context")) }
            endpoints.kubeconfig = kubernetes["kubeconfig"].flatMap { nonEmptyString($0, kubernetes.path("kubeconfig")) }
            endpoints.kubernetesEgressCIDRs = kubernetes["egressCIDRs"].flatMap { cidrs($0, kubernetes.path("egressCIDRs")) } ?? []
            endpoints.kubernetesClusterSet = kubernetes["clusterSet"].flatMap { name($0, kubernetes.path("clusterSet")) }
            endpoints.kubernetesAgeRecipient = kubernetes["ageRecipient"].flatMap { ageRecipient($0, kubernetes.path("ageRecipient")) }
            gitOpsReferences(kubernetes, into: &endpoints)
        }
        if let cdn = entry("cdn", ["url", "tokenEnv"], required: ["url"]) {
            endpoints.cdnURL = cdn["url"].flatMap { url($0, cdn.path("url")) }
            endpoints.cdnTokenEnv = cdn["tokenEnv"].flatMap { environmentName($0, cdn.path("tokenEnv")) }
        }
        if let storage = entry("objectStorage", ["url", "backupProfile"], required: ["url"]) {
            endpoints.objectStorageURL = storage["url"].flatMap { url($0, storage.path("url")) }
            if let node = storage["url"], let value = endpoints.objectStorageURL, LoopbackHost.isCleartextAcrossANetwork(value) {
                // The database VMs' backups and the requests signed with the backup keys would cross it unencrypted.
                error(node.location, "\(storage.path("url")): \"\(value)\" would carry the backups and the requests signed with their keys in clear text: use https:// (plain http only to a loopback address)")
                endpoints.objectStorageURL = nil
            }
            endpoints.objectStorageBackupProfile = storage["backupProfile"].flatMap { profileName($0, storage.path("backupProfile")) }
        }
        if let aws = entry("aws", ["profile"], required: ["profile"]) {
            endpoints.awsProfile = aws["profile"].flatMap { nonEmptyString($0, aws.path("profile")) }
        }
        return endpoints
    }

    /// An age X25519 recipient as `age-keygen` prints it: `age1` and 58 characters of bech32's lowercase alphabet
    /// (32 bytes and a 6-character checksum). The checksum is checked when `render` encrypts to it.
    private func ageRecipient(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = string(node, path) else { return nil }
        let alphabet = Set("qpzry9x8gf2tvdw0s3jn54khce6mua7l")
        guard value.hasPrefix("age1"), value.count == 62, value.dropFirst(4).allSatisfy(alphabet.contains) else {
            error(node.location, "\(path): \"\(value)\" is not an age recipient: expected age1 and 58 lowercase bech32 characters, as age-keygen prints it")
            return nil
        }
        return value
    }

    /// How Argo CD and Flux name the cluster (docs/gitops.md, "Bootstrap"): Argo CD's destination is a server URL or
    /// a registered name, never both; Flux reads a kubeconfig Secret.
    private func gitOpsReferences(_ kubernetes: Fields, into endpoints: inout Cloud.Endpoints) {
        endpoints.kubernetesServer = kubernetes["server"].flatMap { url($0, kubernetes.path("server")) }
        endpoints.argocdCluster = kubernetes["argocdCluster"].flatMap { nonEmptyString($0, kubernetes.path("argocdCluster")) }
        if let server = kubernetes["server"], kubernetes["argocdCluster"] != nil {
            error(server.location, "\(kubernetes.path("server")): set server or argocdCluster, not both; an Argo CD destination names its cluster by one of them")
        }
        if let node = kubernetes["fluxKubeConfigSecret"], let name = string(node, kubernetes.path("fluxKubeConfigSecret")) {
            if Names.isSubdomain(name) {
                endpoints.fluxKubeConfigSecret = name
            } else {
                error(node.location, "\(kubernetes.path("fluxKubeConfigSecret")): \"\(name)\" is not a Secret name: use lower-case letters, digits, '-' and '.', at most 253 characters")
            }
        }
        if let node = kubernetes["fluxKubeConfigKey"], let key = string(node, kubernetes.path("fluxKubeConfigKey")) {
            if Names.isSecretKey(key) {
                endpoints.fluxKubeConfigKey = key
            } else {
                error(node.location, "\(kubernetes.path("fluxKubeConfigKey")): \"\(key)\" is not a key of a Secret: use letters, digits, '-', '_' and '.'")
            }
        }
    }

    func url(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = string(node, path) else { return nil }
        guard value.hasPrefix("https://") || value.hasPrefix("http://"), value.count > 8, !value.contains(" ") else {
            error(node.location, "\(path): \"\(value)\" is not an http:// or https:// URL")
            return nil
        }
        return value
    }

    /// Address ranges such as `203.0.113.0/24` or `2001:db8::/32`, sorted so the rules they make are stable.
    func cidrs(_ node: YAMLNode, _ path: String) -> [String]? {
        guard strings(node, path, nonEmpty: true) != nil, let items = list(node, path) else { return nil }
        var values: [String] = []
        for (index, item) in items.enumerated() {
            guard let value = string(item.node, item.path) else { return nil }
            guard let range = AddressRange(value) else {
                error(item.node.location, "\(path)[\(index)]: \"\(value)\" is not an address range such as 203.0.113.0/24 or 2001:db8::/32")
                continue
            }
            // A database port opened to these ranges must not be opened to the world, nor to more than was meant.
            guard range.prefixLength > 0 else {
                error(item.node.location, "\(path)[\(index)]: \"\(value)\" is every address; name the ranges the cluster's traffic leaves from, such as its NAT's 203.0.113.7/32")
                continue
            }
            guard !range.hasHostBits else {
                error(item.node.location, "\(path)[\(index)]: \"\(value)\" has bits set past its /\(range.prefixLength) prefix; the range it stands for is \(range.network.description)")
                continue
            }
            values.append(value)
        }
        return values.count == items.count ? values.sorted() : nil
    }

    /// A profile of the AWS files: a section name, so no brackets, no line breaks and no spaces at its ends.
    func profileName(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = nonEmptyString(node, path) else { return nil }
        let forbidden = value.unicodeScalars.contains { $0 == "[" || $0 == "]" || $0.properties.generalCategory == .control || $0.properties.isWhitespace && $0 != " " }
        guard value == value.trimmingSpaces, !forbidden else {
            error(node.location, "\(path): \"\(value)\" is not an AWS profile name (a section of the AWS config files: no brackets, line breaks or surrounding spaces)")
            return nil
        }
        return value
    }

    func environmentName(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = string(node, path) else { return nil }
        guard Names.isEnvironmentName(value) else {
            error(node.location, "\(path): \"\(value)\" is not an environment variable name (letters, digits and '_', not starting with a digit)")
            return nil
        }
        return value
    }
    /// `offers.dbaas`: a list of engines (`[postgresql, redis]`), or engines with the versions sold
    /// (`{postgresql: ["15", "16"], redis: ["7.2"]}`). `mariadb` is the `mysql` engine: one name, so a manifest's
    /// either matches an offer of either, and their versions are merged.
    private func managedEngines(_ node: YAMLNode, _ path: String) -> (engines: [String], versions: [String: [String]])? {
        var engines: [String] = []
        var versions: [String: [String]] = [:]
        func add(_ name: String, _ listed: [String]?) {
            let engine = Engine.canonicalName(name)
            if !engines.contains(engine) { engines.append(engine) }
            if let listed { versions[engine, default: []] += listed.filter { !(versions[engine] ?? []).contains($0) } }
        }
        if node.sequence != nil {
            guard let names = names(node, path) else { return nil }
            names.forEach { add($0, nil) }
            return (engines, versions)
        }
        guard node.mapping != nil else {
            error(node.location, "\(path) must be a list of engines or a mapping of engines to their versions, found \(node.kindDescription)")
            return nil
        }
        guard let entries = dictionary(node, path) else { return nil }
        var valid = true
        for entry in entries {
            guard let engine = name(entry.keyNode, entry.path), let listed = strings(entry.value, entry.path, nonEmpty: true) else {
                valid = false
                continue
            }
            add(engine, listed)
        }
        return valid ? (engines, versions) : nil
    }
}
