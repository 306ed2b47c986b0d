import MCloudCore
import MCloudHTTP

/// OpenStack's paging: a list answer says that more follow with a `next` link (Nova's `servers_links`, Cinder's
/// `volumes_links`, Neutron's `security_groups_links`, Trove's `links`), never with a full page: a server gives at
/// most its own limit (Nova's and Cinder's `max_limit`, Neutron's `pagination_max_limit`, Trove's page size),
/// whatever limit was asked, so a page shorter than the limit asked is not the last one.
enum PageLinks {
    /// The marker of the next page, the last item's ID, when the answer links one; nil on the last page (no link,
    /// or a link after an empty page). A server that links a page whose last item was a marker before, or that
    /// links more pages than `PageTokens` allows, would never end: that is an error naming the operation.
    static func nextMarker(_ answer: JSONValue, links key: String, lastID: String?, pages: inout PageTokens) throws(OpenStackError) -> String? {
        let more = answer[key]?.arrayItems.contains { $0["rel"]?.stringValue == "next" } ?? false
        do {
            return try pages.next(more ? lastID : nil)
        } catch {
            throw .invalidResponse(error.description)
        }
    }
}
