internal import CYAML

/// One parser event, copied out of libyaml so no C memory outlives the call that produced it.
enum ParserEvent {
    struct Mark {
        var index: Int
        var line: Int
        var column: Int
    }

    case streamStart
    case streamEnd
    case documentStart(Mark)
    case documentEnd
    case alias(anchor: String, Mark)
    case scalar(anchor: String?, tag: String?, value: String, style: ScalarStyle, Mark)
    case sequenceStart(anchor: String?, tag: String?, Mark)
    case sequenceEnd
    case mappingStart(anchor: String?, tag: String?, Mark)
    case mappingEnd
}

/// libyaml's complaint, with the place it points at; a reader error has only a byte offset.
struct LibYAMLFailure: Error {
    var problem: String
    var context: String?
    var mark: ParserEvent.Mark?
    var byteOffset: Int?
}

/// Owns a libyaml parser and a private copy of its input for the parser's whole life.
final class LibYAMLParser {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>

    init?(bytes: some Collection<UInt8>) {
        parser = .allocate(capacity: 1)
        input = .allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        guard yaml_parser_initialize(parser) == 1 else {
            parser.deallocate()
            input.deallocate()
            return nil
        }
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

    func next() throws(LibYAMLFailure) -> ParserEvent {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw failure() }
        defer { yaml_event_delete(&event) }
        let mark = ParserEvent.Mark(
            index: Int(event.start_mark.index),
            line: Int(event.start_mark.line),
            column: Int(event.start_mark.column)
        )
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return .streamStart
        case YAML_STREAM_END_EVENT, YAML_NO_EVENT:
            return .streamEnd
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(mark)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_ALIAS_EVENT:
            return .alias(anchor: Self.string(event.data.alias.anchor) ?? "", mark)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let value = scalar.value.map {
                String(decoding: UnsafeBufferPointer(start: $0, count: Int(scalar.length)), as: UTF8.self)
            } ?? ""
            return .scalar(
                anchor: Self.string(scalar.anchor), tag: Self.string(scalar.tag),
                value: value, style: Self.style(scalar.style), mark
            )
        case YAML_SEQUENCE_START_EVENT:
            let start = event.data.sequence_start
            return .sequenceStart(anchor: Self.string(start.anchor), tag: Self.string(start.tag), mark)
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd
        case YAML_MAPPING_START_EVENT:
            let start = event.data.mapping_start
            return .mappingStart(anchor: Self.string(start.anchor), tag: Self.string(start.tag), mark)
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd
        default:
            return .streamEnd
        }
    }

    private func failure() -> LibYAMLFailure {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "malformed YAML"
        let context = state.context.map { String(cString: $0) }
        switch state.error {
        case YAML_READER_ERROR:
            return LibYAMLFailure(problem: problem, context: nil, mark: nil, byteOffset: Int(state.problem_offset))
        case YAML_MEMORY_ERROR:
            return LibYAMLFailure(problem: "out of memory while parsing", context: nil, mark: nil, byteOffset: nil)
        default:
            let mark = ParserEvent.Mark(
                index: Int(state.problem_mark.index),
                line: Int(state.problem_mark.line),
                column: Int(state.problem_mark.column)
            )
            return LibYAMLFailure(problem: problem, context: context, mark: mark, byteOffset: nil)
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func style(_ style: yaml_scalar_style_t) -> ScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }
}
