import MCloudCore
import MCloudYAML

extension Decoder {
    func service(_ spec: YAMLNode, _ metadata: Metadata) -> Service? {
        let keys = ["image", "scope", "replicas", "resources", "ports", "data", "dependsOn", "expose", "autoscale", "availability", "env", "probes"]
        guard let fields = mapping(spec, "spec", keys: keys, required: ["image", "replicas", "resources"]) else { return nil }
        let image = fields["image"].flatMap { self.image($0, "spec.image") }
        let scope = fields["scope"].map { choice($0, "spec.scope", as: Scope.self) } ?? .perAudience
        let replicas = fields["replicas"].flatMap { int($0, "spec.replicas", min: 1, max: 10_000) }
        let resources = fields["resources"].flatMap { self.resources($0) }
        let ports = fields["ports"].map { self.ports($0) } ?? []
        let data = fields["data"].map { names($0, "spec.data") } ?? []
        let dependsOn = fields["dependsOn"].map { self.dependencies($0) } ?? []
        let expose = fields["expose"].map { self.expose($0) }
        let autoscale = fields["autoscale"].map { self.autoscale($0) }
        let availability = fields["availability"].map { self.availability($0, "spec.availability") }
        let env = fields["env"].map { self.environment($0) } ?? []
        let probes = fields["probes"].map { self.probes($0, ports: ports ?? []) } ?? (nil, nil)
        guard let image, let scope, let replicas, let resources, let ports, let data, let dependsOn, let env,
              let probes, expose != .some(nil), autoscale != .some(nil), availability != .some(nil) else { return nil }
        if let autoscale = autoscale ?? nil, let node = fields["replicas"], !(autoscale.min...autoscale.max).contains(replicas) {
            error(node.location, "spec.replicas (\(replicas)) must lie within spec.autoscale [\(autoscale.min), \(autoscale.max)]")
        }
        return Service(
            name: metadata.name, labels: metadata.labels, image: image, scope: scope, replicas: replicas, resources: resources,
            ports: ports, data: data, dependsOn: dependsOn, expose: expose ?? nil, autoscale: autoscale ?? nil,
            availability: availability ?? nil, env: env, readinessProbe: probes.readiness, livenessProbe: probes.liveness,
            location: metadata.location
        )
    }

    /// `registry/name:tag` or `name@sha256:…`; no spaces, not empty.
    private func image(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = nonEmptyString(node, path) else { return nil }
        guard !value.contains(where: { $0.isWhitespace }), !value.hasPrefix(":"), !value.hasSuffix(":") else {
            error(node.location, "\(path): \"\(value)\" is not a container image reference such as registry.example/app:1.2.3")
            return nil
        }
        return value
    }

    private func resources(_ node: YAMLNode) -> Service.Resources? {
        guard let fields = mapping(node, "spec.resources", keys: ["cpu", "memory", "limits"], required: ["cpu", "memory"]) else { return nil }
        let cpu = fields["cpu"].flatMap { self.cpu($0, "spec.resources.cpu") }
        let memory = fields["memory"].flatMap { self.memory($0, "spec.resources.memory") }
        var limitCPU: CPUQuantity?
        var limitMemory: MemoryQuantity?
        var valid = true
        if let node = fields["limits"], let limits = mapping(node, "spec.resources.limits", keys: ["cpu", "memory"]) {
            if let node = limits["cpu"] {
                limitCPU = self.cpu(node, "spec.resources.limits.cpu")
                if let limit = limitCPU, let cpu, limit < cpu {
                    error(node.location, "spec.resources.limits.cpu (\(limit)) is below the request spec.resources.cpu (\(cpu))")
                    valid = false
                }
            }
            if let node = limits["memory"] {
                limitMemory = self.memory(node, "spec.resources.limits.memory")
                if let limit = limitMemory, let memory, limit < memory {
                    error(node.location, "spec.resources.limits.memory (\(limit)) is below the request spec.resources.memory (\(memory))")
                    valid = false
                }
            }
        }
        guard valid, let cpu, let memory else { return nil }
        if cpu.millicores == 0, let node = fields["cpu"] {
            error(node.location, "spec.resources.cpu must be more than 0")
            return nil
        }
        if memory.bytes == 0, let node = fields["memory"] {
            error(node.location, "spec.resources.memory must be more than 0")
            return nil
        }
        // A bare number is bytes, as in Kubernetes; below a mebibyte no container starts, so the unit was forgotten.
        if memory.bytes < 1_048_576, let node = fields["memory"], let text = node.scalar?.value, text.allSatisfy(\.isNumber) {
            error(node.location, "spec.resources.memory: \(text) is \(text) bytes, too little for any container; write \(text)Mi for mebibytes")
            return nil
        }
        return Service.Resources(cpu: cpu, memory: memory, limitCPU: limitCPU, limitMemory: limitMemory)
    }

    private func ports(_ node: YAMLNode) -> [Service.Port]? {
        guard let items = list(node, "spec.ports") else { return nil }
        var ports: [Service.Port] = []
        var names: [String: SourceLocation] = [:]
        var numbers: [String: SourceLocation] = [:]
        var valid = true
        for item in items {
            guard let fields = mapping(item.node, item.path, keys: ["name", "port", "protocol"], required: ["name", "port"]) else {
                valid = false
                continue
            }
            let name = fields["name"].flatMap { portName($0, fields.path("name")) }
            let number = fields["port"].flatMap { int($0, fields.path("port"), min: 1, max: 65535) }
            let transport = fields["protocol"].map { choice($0, fields.path("protocol"), as: Service.Port.TransportProtocol.self) } ?? .TCP
            guard let name, let number, let transport else {
                valid = false
                continue
            }
            if let first = names[name], let node = fields["name"] {
                error(node.location, "\(fields.path("name")): port name \"\(name)\" is already used at \(first)")
                valid = false
            } else if let first = numbers["\(number)/\(transport)"], let node = fields["port"] {
                error(node.location, "\(fields.path("port")): port \(number)/\(transport.rawValue) is already used at \(first)")
                valid = false
            }
            names[name] = names[name] ?? fields["name"]?.location
            numbers["\(number)/\(transport)"] = numbers["\(number)/\(transport)"] ?? fields["port"]?.location
            ports.append(Service.Port(name: name, port: number, transport: transport))
        }
        return valid ? ports : nil
    }

    /// Kubernetes port names: a DNS label of at most 15 characters with at least one letter.
    private func portName(_ node: YAMLNode, _ path: String) -> String? {
        guard let name = self.name(node, path) else { return nil }
        guard name.count <= 15, name.contains(where: { $0.isLetter }), !name.contains("--") else {
            error(node.location, "\(path): \"\(name)\" is not a port name: at most 15 characters, with a letter and no \"--\" (Kubernetes IANA_SVC_NAME)")
            return nil
        }
        return name
    }

    private func dependencies(_ node: YAMLNode) -> [Service.Dependency]? {
        guard let items = list(node, "spec.dependsOn") else { return nil }
        var dependencies: [Service.Dependency] = []
        var seen: [String: SourceLocation] = [:]
        var valid = true
        for item in items {
            guard let fields = mapping(item.node, item.path, keys: ["name", "trafficGiBMonth", "maxLatencyMs"], required: ["name"]) else {
                valid = false
                continue
            }
            let name = fields["name"].flatMap { self.name($0, fields.path("name")) }
            let traffic = fields["trafficGiBMonth"].map { number($0, fields.path("trafficGiBMonth")) } ?? 0
            let limit = fields["maxLatencyMs"].map { number($0, fields.path("maxLatencyMs"), positive: true) }
            guard let name, let traffic, limit != .some(nil) else {
                valid = false
                continue
            }
            if let first = seen[name], let node = fields["name"] {
                error(node.location, "\(fields.path("name")): \"\(name)\" is already listed at \(first)")
                valid = false
                continue
            }
            seen[name] = fields["name"]?.location
            dependencies.append(Service.Dependency(name: name, trafficGiBMonth: traffic, maxLatencyMs: limit ?? nil))
        }
        return valid ? dependencies : nil
    }

    private func expose(_ node: YAMLNode) -> Service.Expose? {
        guard let fields = mapping(node, "spec.expose", keys: ["public", "path"]) else { return nil }
        let isPublic = fields["public"].map { bool($0, "spec.expose.public") } ?? false
        let path = fields["path"].map { httpPath($0, "spec.expose.path") } ?? "/"
        guard let isPublic, let path else { return nil }
        return Service.Expose(isPublic: isPublic, path: path)
    }

    func httpPath(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = string(node, path) else { return nil }
        guard value.hasPrefix("/"), !value.contains(where: { $0.isWhitespace }) else {
            error(node.location, "\(path): \"\(value)\" is not a URL path; it must start with / and hold no spaces")
            return nil
        }
        return value
    }

    private func autoscale(_ node: YAMLNode) -> Service.Autoscale? {
        let keys = ["min", "max", "targetCPU"]
        guard let fields = mapping(node, "spec.autoscale", keys: keys, required: ["min", "max"]) else { return nil }
        let minimum = fields["min"].flatMap { int($0, "spec.autoscale.min", min: 1) }
        let maximum = fields["max"].flatMap { int($0, "spec.autoscale.max", min: 1) }
        let target = fields["targetCPU"].map { int($0, "spec.autoscale.targetCPU", min: 1, max: 100) } ?? 80
        guard let minimum, let maximum, let target else { return nil }
        guard minimum <= maximum else {
            if let node = fields["max"] {
                error(node.location, "spec.autoscale.max (\(maximum)) is below spec.autoscale.min (\(minimum))")
            }
            return nil
        }
        return Service.Autoscale(min: minimum, max: maximum, targetCPU: target)
    }

    private func environment(_ node: YAMLNode) -> [Service.EnvVar]? {
        guard let entries = dictionary(node, "spec.env") else { return nil }
        var variables: [Service.EnvVar] = []
        var valid = true
        for entry in entries {
            guard Names.isEnvironmentName(entry.key) else {
                error(entry.keyNode.location, "spec.env: \"\(entry.key)\" is not an environment variable name (letters, digits and '_', not starting with a digit)")
                valid = false
                continue
            }
            guard let value = string(entry.value, entry.path) else {
                valid = false
                continue
            }
            variables.append(Service.EnvVar(name: entry.key, value: value))
        }
        return valid ? variables : nil
    }

    private func probes(_ node: YAMLNode, ports: [Service.Port]) -> (readiness: Service.Probe?, liveness: Service.Probe?)? {
        guard let fields = mapping(node, "spec.probes", keys: ["readiness", "liveness"]) else { return nil }
        var valid = true
        func probe(_ key: String) -> Service.Probe? {
            guard let node = fields[key] else { return nil }
            guard let probe = self.probe(node, fields.path(key), ports: ports) else {
                valid = false
                return nil
            }
            return probe
        }
        let probes = (readiness: probe("readiness"), liveness: probe("liveness"))
        return valid ? probes : nil
    }

    private func probe(_ node: YAMLNode, _ path: String, ports: [Service.Port]) -> Service.Probe? {
        guard let fields = mapping(node, path, keys: ["path", "port"], required: ["path", "port"]) else { return nil }
        let httpPath = fields["path"].flatMap { self.httpPath($0, fields.path("path")) }
        var port: String?
        if let node = fields["port"] {
            if case .int(let number) = node.scalar?.resolved {
                if ports.contains(where: { $0.port == number }) {
                    port = String(number)
                } else {
                    error(node.location, "\(fields.path("port")): \(number) is not one of spec.ports")
                }
            } else if case .string(let text) = node.scalar?.resolved, Int(text) != nil {
                error(node.location, "\(fields.path("port")): \"\(text)\" is a port number written as a string; remove the quotes")
            } else if let name = self.name(node, fields.path("port")) {
                if ports.contains(where: { $0.name == name }) {
                    port = name
                } else {
                    error(node.location, "\(fields.path("port")): no port named \"\(name)\" in spec.ports" + Suggestion.didYouMean(name, in: ports.map(\.name)))
                }
            }
        }
        guard let httpPath, let port else { return nil }
        return Service.Probe(path: httpPath, port: port)
    }
}
