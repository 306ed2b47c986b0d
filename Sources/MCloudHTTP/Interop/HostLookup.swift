import Glibc

/// `getaddrinfo` asked for a host's IPv4 stream addresses; the one place mcloud reads the system's resolver.
enum HostLookup {
    /// The addresses in the resolver's order without repeats; none when the name does not resolve.
    static func ipv4(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if current.pointee.ai_family == AF_INET, let address = current.pointee.ai_addr, let text = text(address), !found.contains(text) {
                found.append(text)
            }
            node = current.pointee.ai_next
        }
        return found
    }

    private static func text(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        let written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
            var raw = inet.pointee.sin_addr
            return inet_ntop(AF_INET, &raw, &buffer, socklen_t(INET_ADDRSTRLEN)) != nil
        }
        guard written else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
