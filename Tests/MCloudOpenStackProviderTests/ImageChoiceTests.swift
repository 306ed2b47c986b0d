import MCloudCore
import MCloudOpenStack
import Testing
@testable import MCloudOpenStackProvider

/// The Glance image a database VM boots, chosen from answers shaped like Glance's `/v2/images` list: only an image the
/// catalog trusts (public, or of the project it names as owner), and never a guess between several.
struct ImageChoiceTests {
    static let standard = VMImage.standard(for: .openstack)
    static let owned = VMImage(family: "debian-12", name: "debian-12", owner: "0a1b2c")

    static func image(_ id: String, visibility: String, owner: String = "0a1b2c", name: String = "debian-12", status: String = "active") -> String {
        #"{"id": "\#(id)", "name": "\#(name)", "status": "\#(status)", "visibility": "\#(visibility)", "owner": "\#(owner)", "os_distro": "debian", "os_version": "12"}"#
    }

    @Test func theRequestAsksOnlyForImagesTheCatalogTrusts() {
        #expect(ImageChoice(image: Self.standard).path == "/v2/images?os_distro=debian&os_version=12&visibility=public&status=active&sort=created_at:desc&limit=2")
        #expect(ImageChoice(image: Self.owned).path == "/v2/images?name=debian-12&owner=0a1b2c&status=active&sort=created_at:desc&limit=2")
    }

    /// Regression: the newest image with Debian's properties was booted whoever had uploaded it, so any member of the
    /// project could plant what database servers run. A Glance that ignored the filter must not bring that back.
    @Test(arguments: [
        (standard, [image("pub", visibility: "public")], "pub"),
        (standard, [image("planted", visibility: "private", owner: "member"), image("pub", visibility: "public")], "pub"),
        (standard, [image("shared", visibility: "shared", owner: "other"), image("community", visibility: "community", owner: "other"), image("pub", visibility: "public")], "pub"),
        (standard, [image("queued", visibility: "public", status: "queued"), image("pub", visibility: "public")], "pub"),
        (owned, [image("community", visibility: "community")], "community"),
        (owned, [image("elsewhere", visibility: "public", owner: "someone-else"), image("mine", visibility: "private")], "mine"),
    ])
    func theOneTrustedImageIsChosen(_ image: VMImage, _ images: [String], _ id: String) throws {
        let answer = try JSONParser.parse(#"{"images": [\#(images.joined(separator: ", "))]}"#)
        #expect(try ImageChoice(image: image).id(in: answer) == id)
    }

    @Test(arguments: [
        (standard, [image("planted", visibility: "private", owner: "member"), image("community", visibility: "community", owner: "member")],
         "the cloud has no active image with os_distro=debian, os_version=12, visibility=public (spec.vm.image of its catalog entry names the debian-12 image database servers boot; without an owner only public images count)"),
        (standard, [image("new", visibility: "public"), image("old", visibility: "public")],
         "more than one active image has os_distro=debian, os_version=12, visibility=public: new (debian-12), old (debian-12); mcloud does not pick one (spec.vm.image of its catalog entry names the debian-12 image database servers boot: give its id)"),
        (owned, [image("elsewhere", visibility: "public", owner: "someone-else")],
         "the cloud has no active image with name=debian-12, owner=0a1b2c (spec.vm.image of its catalog entry names the debian-12 image database servers boot; without an owner only public images count)"),
    ])
    func noTrustedImageOrSeveralAreRefused(_ image: VMImage, _ images: [String], _ message: String) throws {
        let answer = try JSONParser.parse(#"{"images": [\#(images.joined(separator: ", "))]}"#)
        #expect(performing: { try ImageChoice(image: image).id(in: answer) }, throws: { ($0 as? OpenStackError)?.description == message })
    }
}
