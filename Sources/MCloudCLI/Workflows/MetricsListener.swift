import Foundation
import MCloudCore

/// `status --listen ADDR`: answers `GET /metrics` over HTTP with a fresh status each time, for Prometheus to scrape.
/// One connection at a time: a scrape every few seconds needs no more, and each status read already reads every cloud
/// at once. The one owner of the listening socket, which it closes when it goes.
final class MetricsListener: Sendable {
    struct Failure: Error {
        var message: String
    }

    /// What a request gets: the status code and the body.
    typealias Answer = (status: Int, body: String)

    private let descriptor: Int32
    /// The port bound: the one asked for, or the one the system chose for port 0.
    let port: Int

    /// Listens on an IPv4 `host` and `port`.
    init(host: String, port: Int) throws(Failure) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(message: "cannot open a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        var reuse: Int32 = 1
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = inet_pton(AF_INET, host, &address.sin_addr) == 1
            && setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size)) == 0
            && withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
            }
            && listen(socket, 16) == 0
            // Accept never blocks the task: the loop waits between tries and sees cancellation.
            && fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK) == 0
        guard ready else {
            let reason = inet_pton(AF_INET, host, &address.sin_addr) == 1 ? String(cString: strerror(errno)) : "\(host) is not an IPv4 address"
            close(socket)
            throw Failure(message: "cannot listen on \(host):\(port): \(reason)")
        }
        descriptor = socket
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }

    /// Answers requests until the task is cancelled; `metrics` makes the answer to each `GET /metrics`.
    func serve(_ metrics: @Sendable () async -> Answer) async {
        while !Task.isCancelled {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else {
                try? await SystemClock().sleep(seconds: 0.05)
                continue
            }
            await answer(client, metrics)
            close(client)
        }
    }

    private func answer(_ client: Int32, _ metrics: @Sendable () async -> Answer) async {
        // A client that sends nothing is dropped after this long, so it cannot hold the endpoint.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while request.count < 16384, !request.ends(with: Array("\r\n\r\n".utf8)) {
            let count = read(client, &chunk, chunk.count)
            if count <= 0 { break }
            request += chunk[0..<count]
        }
        let line = String(decoding: request.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self).split(separator: " ")
        let path = line.count > 1 ? line[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? "" : ""
        let answer: Answer
        if line.first != "GET" {
            answer = (405, "only GET\n")
        } else if path != "/metrics" {
            answer = (404, "mcloud serves /metrics only\n")
        } else {
            answer = await metrics()
        }
        let reasons = [200: "OK", 404: "Not Found", 405: "Method Not Allowed", 500: "Internal Server Error"]
        let body = Array(answer.body.utf8)
        let head = "HTTP/1.1 \(answer.status) \(reasons[answer.status] ?? "Error")\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var bytes = Array(head.utf8) + body
        while !bytes.isEmpty {
            let sent = send(client, bytes, bytes.count, Int32(MSG_NOSIGNAL))
            if sent <= 0 { return }
            bytes.removeFirst(sent)
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
