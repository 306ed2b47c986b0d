import MCloudCore
import Testing

@Suite struct SuggestionTests {
    @Test(arguments: [
        ("replica", "replicas"), ("dependOn", "dependsOn"), ("Servce", "Service"), ("sevrice", "service"), ("REPLICAS", "replicas"),
    ])
    func nearMissesSuggestTheIntendedWord(_ typo: String, _ meant: String) {
        #expect(Suggestion.closest(to: typo, in: ["replicas", "dependsOn", "Service", "service", "image"]) == meant)
    }

    @Test func distantWordsSuggestNothing() {
        #expect(Suggestion.closest(to: "banana", in: ["replicas", "image"]) == nil)
        #expect(Suggestion.didYouMean("zz", in: ["ru", "eu"]) == "")
    }

    @Test func transpositionsCountAsOneEdit() {
        #expect(Suggestion.editDistance("ue", "eu") == 1)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
    }
}
