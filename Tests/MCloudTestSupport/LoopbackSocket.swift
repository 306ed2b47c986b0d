#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to a port of 127.0.0.1 that the kernel chose: its descriptor, which the caller closes, and the
/// port; nil when it cannot be made.
public func loopbackSocket() -> (descriptor: Int32, port: Int)? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
    }
    guard bound else {
        close(descriptor)
        return nil
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// A port of the host's 127.0.0.1 that is free now, for a bed to listen on later (the container bed's
/// `--publish HOSTPORT:PORT`); nil when no socket can be made.
public func freeLoopbackPort() -> Int? {
    guard let socket = loopbackSocket() else { return nil }
    close(socket.descriptor)
    return socket.port
}
