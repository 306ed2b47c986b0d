import MCloudCore

/// A change to the input that may let a failed cell be placed, with the words that propose it. It is printed only
/// once `HintCheck` has applied it to a copy of the input and placed the cell again (docs/planner.md, Hints).
struct Hint {
    var text: String
    /// Edits the model and the clouds taken as lost, as the text says.
    var edit: (inout Model, inout Set<String>) -> Void

    init(_ text: String, edit: @escaping (inout Model, inout Set<String>) -> Void) {
        self.text = text
        self.edit = edit
    }

    /// A hint that changes the model only.
    static func model(_ text: String, _ edit: @escaping (inout Model) -> Void) -> Hint {
        Hint(text) { model, _ in edit(&model) }
    }

    /// Edits the service named `name` in place.
    static func service(_ name: String, _ text: String, _ edit: @escaping (inout Service) -> Void) -> Hint {
        model(text) { model in
            for index in model.services.indices where model.services[index].name == name { edit(&model.services[index]) }
        }
    }

    /// Edits the database named `name` in place.
    static func database(_ name: String, _ text: String, _ edit: @escaping (inout Database) -> Void) -> Hint {
        model(text) { model in
            for index in model.databases.indices where model.databases[index].name == name { edit(&model.databases[index]) }
        }
    }

    /// Edits the cloud named `name` in place.
    static func cloud(_ name: String, _ text: String, _ edit: @escaping (inout Cloud) -> Void) -> Hint {
        model(text) { model in
            for index in model.clouds.indices where model.clouds[index].name == name { edit(&model.clouds[index]) }
        }
    }

    /// Adds a cloud made like `template`, changed by `edit`, under a name no cloud has.
    static func newCloud(like template: Cloud, _ text: String, _ edit: @escaping (inout Cloud) -> Void) -> Hint {
        model(text) { model in
            var cloud = template
            var suffix = 2
            while model.clouds.contains(where: { $0.name == "\(template.name)-\(suffix)" }) { suffix += 1 }
            cloud.name = "\(template.name)-\(suffix)"
            edit(&cloud)
            model.clouds.append(cloud)
        }
    }
}
