/// A microservice container and what it needs.
public struct Service: Hashable, Sendable {
    public struct Resources: Hashable, Sendable {
        public var cpu: CPUQuantity
        public var memory: MemoryQuantity
        public var limitCPU: CPUQuantity?
        public var limitMemory: MemoryQuantity?

        public init(cpu: CPUQuantity, memory: MemoryQuantity, limitCPU: CPUQuantity? = nil, limitMemory: MemoryQuantity? = nil) {
            self.cpu = cpu
            self.memory = memory
            self.limitCPU = limitCPU
            self.limitMemory = limitMemory
        }
    }

    public struct Port: Hashable, Sendable {
        public enum TransportProtocol: String, Hashable, Sendable, CaseIterable {
            case TCP
            case UDP
            case SCTP
        }

        public var name: String
        public var port: Int
        public var transport: TransportProtocol

        public init(name: String, port: Int, transport: TransportProtocol = .TCP) {
            self.name = name
            self.port = port
            self.transport = transport
        }
    }

    public struct Dependency: Hashable, Sendable {
        public var name: String
        public var trafficGiBMonth: Double
        /// The most round-trip time allowed between a cell of the service and the cell it uses (`maxLatencyMs`): a
        /// hard rule of the planner; nil sets none.
        public var maxLatencyMs: Double?

        public init(name: String, trafficGiBMonth: Double, maxLatencyMs: Double? = nil) {
            self.name = name
            self.trafficGiBMonth = trafficGiBMonth
            self.maxLatencyMs = maxLatencyMs
        }
    }

    public struct Expose: Hashable, Sendable {
        public var isPublic: Bool
        public var path: String

        public init(isPublic: Bool, path: String) {
            self.isPublic = isPublic
            self.path = path
        }
    }

    public struct Autoscale: Hashable, Sendable {
        public var min: Int
        public var max: Int
        public var targetCPU: Int

        public init(min: Int, max: Int, targetCPU: Int) {
            self.min = min
            self.max = max
            self.targetCPU = targetCPU
        }
    }

    public struct EnvVar: Hashable, Sendable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// An HTTP GET probe on one of the service's ports.
    public struct Probe: Hashable, Sendable {
        public var path: String
        public var port: String

        public init(path: String, port: String) {
            self.path = path
            self.port = port
        }
    }

    public var name: String
    public var labels: [String: String]
    public var image: String
    public var scope: Scope
    public var replicas: Int
    public var resources: Resources
    public var ports: [Port]
    public var data: [String]
    public var dependsOn: [Dependency]
    public var expose: Expose?
    public var autoscale: Autoscale?
    public var availability: Availability?
    /// Environment variables in the order written.
    public var env: [EnvVar]
    public var readinessProbe: Probe?
    public var livenessProbe: Probe?
    public var location: SourceLocation

    public init(
        name: String, labels: [String: String] = [:], image: String, scope: Scope, replicas: Int, resources: Resources,
        ports: [Port] = [], data: [String] = [], dependsOn: [Dependency] = [], expose: Expose? = nil,
        autoscale: Autoscale? = nil, availability: Availability? = nil, env: [EnvVar] = [],
        readinessProbe: Probe? = nil, livenessProbe: Probe? = nil, location: SourceLocation
    ) {
        self.name = name
        self.labels = labels
        self.image = image
        self.scope = scope
        self.replicas = replicas
        self.resources = resources
        self.ports = ports
        self.data = data
        self.dependsOn = dependsOn
        self.expose = expose
        self.autoscale = autoscale
        self.availability = availability
        self.env = env
        self.readinessProbe = readinessProbe
        self.livenessProbe = livenessProbe
        self.location = location
    }

    public var isPublic: Bool { expose?.isPublic ?? false }
}
