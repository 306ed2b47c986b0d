/// The files of a rendering, by path relative to the output directory, sorted by path.
public struct RenderedTree: Sendable, Equatable {
    public struct File: Sendable, Equatable {
        public var path: String
        public var contents: String
    }

    public var files: [File]
}
