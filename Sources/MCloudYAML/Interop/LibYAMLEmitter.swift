internal import CYAML

/// Owns a libyaml emitter writing into a Swift byte buffer.
final class LibYAMLEmitter {
    enum Event {
        case streamStart
        case streamEnd
        case documentStart(explicit: Bool)
        case documentEnd
        case scalar(String, ScalarStyle)
        case sequenceStart
        case sequenceEnd
        case mappingStart
        case mappingEnd
    }

    struct Failure: Error {
        var message: String
    }

    private final class Output {
        var bytes: [UInt8] = []
    }

    private let emitter: UnsafeMutablePointer<yaml_emitter_t>
    private let output = Output()

    init?() {
        emitter = .allocate(capacity: 1)
        guard yaml_emitter_initialize(emitter) == 1 else {
            emitter.deallocate()
            return nil
        }
        yaml_emitter_set_unicode(emitter, 1)
        yaml_emitter_set_indent(emitter, 2)
        yaml_emitter_set_width(emitter, -1)
        yaml_emitter_set_break(emitter, YAML_LN_BREAK)
        let context = Unmanaged.passUnretained(output).toOpaque()
        yaml_emitter_set_output(emitter, { context, buffer, size in
            guard let context, let buffer else { return 0 }
            let output = Unmanaged<Output>.fromOpaque(context).takeUnretainedValue()
            output.bytes.append(contentsOf: UnsafeBufferPointer(start: buffer, count: size))
            return 1
        }, context)
    }

    deinit {
        yaml_emitter_delete(emitter)
        emitter.deallocate()
    }

    var text: String { String(decoding: output.bytes, as: UTF8.self) }

    func emit(_ event: Event) throws(Failure) {
        var raw = yaml_event_t()
        let initialized: Int32
        switch event {
        case .streamStart:
            initialized = yaml_stream_start_event_initialize(&raw, YAML_UTF8_ENCODING)
        case .streamEnd:
            initialized = yaml_stream_end_event_initialize(&raw)
        case .documentStart(let explicit):
            initialized = yaml_document_start_event_initialize(&raw, nil, nil, nil, explicit ? 0 : 1)
        case .documentEnd:
            initialized = yaml_document_end_event_initialize(&raw, 1)
        case .scalar(let value, let style):
            // A terminating zero keeps the buffer non-empty, so it always has an address.
            var bytes = Array(value.utf8) + [0]
            initialized = bytes.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return yaml_scalar_event_initialize(&raw, nil, nil, base, Int32(buffer.count - 1), 1, 1, Self.cStyle(style))
            }
        case .sequenceStart:
            initialized = yaml_sequence_start_event_initialize(&raw, nil, nil, 1, YAML_BLOCK_SEQUENCE_STYLE)
        case .sequenceEnd:
            initialized = yaml_sequence_end_event_initialize(&raw)
        case .mappingStart:
            initialized = yaml_mapping_start_event_initialize(&raw, nil, nil, 1, YAML_BLOCK_MAPPING_STYLE)
        case .mappingEnd:
            initialized = yaml_mapping_end_event_initialize(&raw)
        }
        guard initialized == 1 else { throw Failure(message: "cannot create a YAML event") }
        guard yaml_emitter_emit(emitter, &raw) == 1 else {
            let problem = emitter.pointee.problem.map { String(cString: $0) } ?? "YAML emitter failed"
            throw Failure(message: problem)
        }
    }

    private static func cStyle(_ style: ScalarStyle) -> yaml_scalar_style_t {
        switch style {
        case .plain: return YAML_PLAIN_SCALAR_STYLE
        case .singleQuoted: return YAML_SINGLE_QUOTED_SCALAR_STYLE
        case .doubleQuoted: return YAML_DOUBLE_QUOTED_SCALAR_STYLE
        case .literal: return YAML_LITERAL_SCALAR_STYLE
        case .folded: return YAML_FOLDED_SCALAR_STYLE
        }
    }
}
