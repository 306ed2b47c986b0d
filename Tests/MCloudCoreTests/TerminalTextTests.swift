import MCloudCore
import Testing

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("plain text, ümlauts and 日本語 stay", "plain text, ümlauts and 日本語 stay"),
        ("red\u{1B}[31m", #"red\u{1B}[31m"#),
        ("title\u{1B}]0;owned\u{07}", #"title\u{1B}]0;owned\u{7}"#),
        ("line\nApply complete!", #"line\u{A}Apply complete!"#),
        ("back\rover", #"back\u{D}over"#),
        ("c1 \u{9B}2J", #"c1 \u{9B}2J"#),
        ("tab\tdel\u{7F}", #"tab\u{9}del\u{7F}"#),
        ("bidi \u{202E}txt.exe", #"bidi \u{202E}txt.exe"#),
        ("separator \u{2028}key: value", #"separator \u{2028}key: value"#),
    ])
    func controlCharactersPrintAsVisibleEscapes(text: String, shown: String) {
        #expect(TerminalText.safe(text) == shown)
    }
}
