import MCloudCore
import MCloudHTTP

/// OpenStack's paging: a list answer says that more follow with a `next` link (Nova's `servers_links`, Cinder's
/// `volumes_links`, Neutron's `security_groups_links`, Trove's `links`), never with a full page: a server gives at
/// most its own limit (Nova's and Cinder's `max_limit`, Neutron's `pagination_max_limit`, Trove's page size),
/// whatever limit was asked, so a page shorter than the limit asked is not the last one.
enum PageLinks {
    /// Every item of a listing, page after page from `marker`, each ID once: a server whose order ties (Trove sorts
    /// by a field many instances share) can shift between two pages and list an item on both, and a caller that
    /// counts, adopts or deletes by the list must see it once. `page` fetches the page after a marker (nil: the
    /// first) and decodes its items, on the caller's isolation (a client actor's own calls).
    static func collect<Item>(
        _ operation: String, links key: String, id: (Item) -> String, isolation: isolated (any Actor)? = #isolation,
        page: (_ marker: String?) async throws(OpenStackError) -> (answer: JSONValue, items: [Item])
    ) async throws(OpenStackError) -> [Item] {
        var pages = PageTokens(operation: operation)
        var collected: [Item] = []
        var seen: Set<String> = []
        var marker: String?
        while true {
            let (answer, items) = try await page(marker)
            for item in items where seen.insert(id(item)).inserted { collected.append(item) }
            guard let next = try nextMarker(answer, links: key, lastID: items.last.map(id), pages: &pages) else { return collected }
            marker = next
        }
    }

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
