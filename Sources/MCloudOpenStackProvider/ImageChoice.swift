import MCloudCore
import MCloudOpenStack

/// Which Glance image a database VM boots when the catalog names none by `id`. Any member of a project can upload
/// an image, share one, or publish a community image with Debian's name and properties, so "the newest match" would
/// let them choose what database servers run. Only images the catalog trusts count: those of the `owner` it names
/// (a Glance project ID), else public ones, which only the cloud's operators may publish. More than one trusted
/// match is refused rather than guessed between.
struct ImageChoice {
    var image: VMImage

    /// The Glance filters: the catalog's `name` and `properties`, and who may have published the image.
    var filters: [(String, String)] {
        let trust = image.owner.map { [("owner", $0)] } ?? [("visibility", "public")]
        return (image.name.map { [("name", $0)] } ?? []) + image.properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } + trust
    }

    /// The `/v2/images` request: two answers are enough to tell one match from several.
    var path: String {
        let query = filters.map { "\(NovaClient.escape($0.0))=\(NovaClient.escape($0.1))" }.joined(separator: "&")
        return "/v2/images?\(query)&status=active&sort=created_at:desc&limit=2"
    }

    /// The one trusted active image in Glance's answer. Each filter is checked again here: a Glance that ignored one
    /// must not let an untrusted image through.
    func id(in answer: JSONValue) throws(OpenStackError) -> String {
        let matches = answer["images"]?.arrayItems.filter { item in
            item["status"]?.stringValue == "active" && filters.allSatisfy { item[$0.0]?.stringValue == $0.1 }
        } ?? []
        let wanted = filters.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")
        let fix = "spec.vm.image of its catalog entry names the \(image.family) image database servers boot"
        guard let first = matches.first, let id = first["id"]?.stringValue else {
            throw .resourceFailed("the cloud has no active image with \(wanted) (\(fix); without an owner only public images count)")
        }
        guard matches.count == 1 else {
            let listed = matches.map { "\($0["id"]?.stringValue ?? "?") (\($0["name"]?.stringValue ?? "unnamed"))" }.joined(separator: ", ")
            throw .resourceFailed("more than one active image has \(wanted): \(listed); mcloud does not pick one (\(fix): give its id)")
        }
        return id
    }
}
