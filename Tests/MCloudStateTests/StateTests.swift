import Foundation
import MCloudCore
import MCloudProvider
import Testing

@Suite struct StateTests {
    static let lineage = "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f"

    static let deployment = ResourceState(
        address: "kubernetes.vk-msk.apps/v1.Deployment.retail-bank-ru.payments-api", provider: "kubernetes", cloud: "vk-msk",
        providerID: "3f1c9a2e-uid", attributes: ["spec": .object([("replicas", .int(3)), ("paused", .bool(false))]), "kind": .string("Deployment")]
    )
    static let namespace = ResourceState(
        address: "kubernetes.vk-msk.v1.Namespace.retail-bank-ru", provider: "kubernetes", cloud: "vk-msk", providerID: "9d2e-uid",
        attributes: ["labels": .object([("app.kubernetes.io/managed-by", .string("mcloud"))])]
    )

    /// The documented example (docs/state.md): resources by address, attribute keys sorted.
    static let example = """
        {
          "format_version": 2,
          "lineage": "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f",
          "serial": 7,
          "resources": [
            {
              "address": "kubernetes.vk-msk.apps/v1.Deployment.retail-bank-ru.payments-api",
              "provider": "kubernetes",
              "cloud": "vk-msk",
              "provider_id": "3f1c9a2e-uid",
              "attributes": {
                "kind": "Deployment",
                "spec": {
                  "paused": false,
                  "replicas": 3
                }
              }
            },
            {
              "address": "kubernetes.vk-msk.v1.Namespace.retail-bank-ru",
              "provider": "kubernetes",
              "cloud": "vk-msk",
              "provider_id": "9d2e-uid",
              "attributes": {
                "labels": {
                  "app.kubernetes.io/managed-by": "mcloud"
                }
              }
            }
          ]
        }

        """

    @Test func serializesDeterministicallyWithResourcesSortedByAddressAndKeysSorted() {
        let forwards = State(lineage: Self.lineage, serial: 7, resources: [Self.namespace, Self.deployment])
        let backwards = State(lineage: Self.lineage, serial: 7, resources: [Self.deployment, Self.namespace])
        #expect(forwards.serialized() == Self.example)
        #expect(backwards.serialized() == Self.example)
    }

    @Test func parsingAndSerializingAgainGivesTheSameBytes() throws {
        let state = try State.parse(Array(Self.example.utf8), source: "state.json")
        #expect(state.serialized() == Self.example)
        #expect(state.serial == 7)
        #expect(state.lineage == Self.lineage)
        #expect(state.resources == [Self.deployment, Self.namespace])
    }

    @Test func keysOutOfOrderAtAnyDepthAreSortedThoughTheLevelsAboveAreInOrder() {
        let resource = ResourceState(
            address: "a", provider: "aws", cloud: "aws-fra", providerID: "i-1",
            attributes: ["a": .array([.object([("z", .int(1)), ("b", .object([("y", .int(2)), ("x", .int(3))]))])]), "b": .object([("c", .int(4))])]
        )
        #expect(resource.attributes.serialized(pretty: false) == #"{"a":[{"b":{"x":3,"y":2},"z":1}],"b":{"c":4}}"#)
    }

    @Test func theUnorderedViewsHoldWhatTheSortedOneHolds() {
        let state = State(lineage: Self.lineage, serial: 7, resources: [Self.namespace, Self.deployment])
        #expect(state.unorderedResources.sorted { $0.address < $1.address } == state.resources)
        #expect(state.addresses.sorted() == state.resources.map(\.address))
    }

    /// States written before the placement was recorded (format 1) still load, and are written as format 2.
    @Test func aStateOfFormatOneLoadsAndIsWrittenAsFormatTwo() throws {
        let old = Self.example.replacingOccurrences(of: "\"format_version\": 2", with: "\"format_version\": 1")
        let state = try State.parse(Array(old.utf8), source: "state.json")
        #expect(state.resources == [Self.deployment, Self.namespace])
        #expect(state.placement == nil)
        #expect(state.serialized() == Self.example)
    }

    static let placement = AppliedPlacement(
        cells: ["accounts-db@ru": .database(primary: "sel-msk", backup: "vk-msk"), "web@ru": .replicas(["vk-msk": 2, "sel-msk": 1]), "cache": .database(primary: "vk-msk", backup: nil)],
        cdns: ["static": "vk-msk"],
        cost: .init(
            currency: "RUB", monthly: 1500.1234567, byCloud: ["vk-msk": 1000.5, "sel-msk": 499.6234567], byCell: ["web@ru": 700, "accounts-db@ru": 600, "cache": 100.1234567],
            byCDN: ["static": 100]
        )
    )

    @Test func theAppliedPlacementIsWrittenSortedAndReadBack() throws {
        var state = State(lineage: Self.lineage, serial: 3, resources: [])
        state.application = "retail-bank"
        state.placement = Self.placement
        let text = state.serialized()
        #expect(text.contains("""
              "placement": {
                "cells": {
                  "accounts-db@ru": {
                    "kind": "Database",
                    "primary": "sel-msk",
                    "backup": "vk-msk"
                  },
                  "cache": {
                    "kind": "Database",
                    "primary": "vk-msk"
                  },
                  "web@ru": {
                    "kind": "Service",
                    "replicas": {
                      "sel-msk": 1,
                      "vk-msk": 2
                    }
                  }
                },
                "cdn": {
                  "static": "vk-msk"
                },
                "cost": {
                  "currency": "RUB",
                  "monthly": 1500.123457,
            """))
        let read = try State.parse(Array(text.utf8), source: "s")
        #expect(read.serialized() == text)
        #expect(read.placement?.cells == Self.placement.cells)
        #expect(read.placement?.cost.monthly == 1500.123457)
    }

    /// A failover's lost clouds and retained resources round-trip; a retained address whose resource is gone is
    /// not written.
    @Test func theLostCloudsAndRetainedResourcesAreWrittenSortedAndReadBack() throws {
        var state = State(lineage: Self.lineage, serial: 4, resources: [Self.deployment, Self.namespace])
        state.lost = ["vk-msk", "sel-spb"].sorted()
        state.retained = [Self.namespace.address]
        let read = try State.parse(state.serializedBytes(), source: "state.json")
        #expect(read == state)
        #expect(state.serialized().contains("\"lost\": [\n    \"sel-spb\",\n    \"vk-msk\"\n  ],\n  \"retained\": ["))
        state.remove(address: Self.namespace.address)
        #expect(!state.serialized().contains("retained"))
        #expect(try State.parse(state.serializedBytes(), source: "state.json").retained.isEmpty)
    }

    /// A switchover's primaries round-trip by address; a pair naming a resource that is gone is not written.
    @Test func theSwitchedOverPrimariesAreWrittenSortedAndReadBack() throws {
        var state = State(lineage: Self.lineage, serial: 4, resources: [Self.deployment, Self.namespace])
        state.primaries = [Self.deployment.address: Self.namespace.address]
        let read = try State.parse(state.serializedBytes(), source: "state.json")
        #expect(read == state)
        #expect(state.serialized().contains("\"primaries\": {\n    \"\(Self.deployment.address)\": \"\(Self.namespace.address)\"\n  },\n  \"resources\""))
        state.remove(address: Self.namespace.address)
        #expect(!state.serialized().contains("primaries"))
    }

    @Test func aNewStateHasAFreshLineageAndSerialZeroAndNextSerialCountsUp() throws {
        let first = State()
        let second = State()
        #expect(first.lineage != second.lineage)
        #expect(first.serial == 0)
        #expect(first.nextSerial().nextSerial().serial == 2)
        #expect(first.nextSerial().lineage == first.lineage)
        // A fresh state parses back, so its lineage is a valid UUID.
        #expect(try State.parse(Array(first.serialized().utf8), source: "s") == first)
    }

    @Test func recordReplacesByAddressAndRemoveForgets() {
        var state = State(lineage: Self.lineage, serial: 1, resources: [Self.deployment])
        var scaled = Self.deployment
        scaled.providerID = "new-uid"
        state.record(scaled)
        state.record(Self.namespace)
        #expect(state.resources.map(\.providerID) == ["new-uid", "9d2e-uid"])
        #expect(state.remove(address: Self.namespace.address) == Self.namespace)
        #expect(state[Self.namespace.address] == nil)
        #expect(state[Self.deployment.address]?.providerID == "new-uid")
    }

    @Test func aStateOfANewerFormatIsRefusedWithUpgradeAdviceWhateverItsShape() {
        let newer = #"{"format_version": 3, "lineage": 42, "whatever": []}"#
        #expect(throws: StateError.newerFormat(source: ".mcloud/state.json", version: 3)) {
            try State.parse(Array(newer.utf8), source: ".mcloud/state.json")
        }
        let message = StateError.newerFormat(source: ".mcloud/state.json", version: 3).description
        #expect(message == ".mcloud/state.json has state format 3, written by a newer mcloud; upgrade mcloud (this one reads format 2)")
    }

    static let valid = #""lineage": "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", "serial": 1"#
    static let resource = #""address": "a", "provider": "kubernetes", "cloud": "vk-msk", "provider_id": "u""#

    /// Every malformed field, with the exact reason given.
    static let malformed: [(document: String, reason: String)] = [
        ("", "not JSON (invalid JSON at byte 0: unexpected end)"),
        ("{\"format_version\": 1,", "not JSON (invalid JSON at byte 21: expected a key)"),
        ("[1, 2]", "the document: expected an object, found an array"),
        ("{\(valid), \"resources\": []}", "format_version: missing"),
        ("{\"format_version\": \"1\", \(valid), \"resources\": []}", "format_version: expected an integer, found a string"),
        ("{\"format_version\": 0, \(valid), \"resources\": []}", "format_version: 0 is not a state format (this mcloud reads 1 to 2)"),
        ("{\"format_version\": 1, \(valid), \"resources\": [], \"placement\": {}}", "placement: unknown field"),
        ("{\"format_version\": 2, \(valid), \"resources\": [], \"placement\": {\"cells\": {}, \"cdn\": {}}}", "placement.cost: missing"),
        ("{\"format_version\": 2, \(valid), \"resources\": [], \"placement\": {\"cells\": {\"w\": {\"kind\": \"Pod\"}}, \"cdn\": {}, \"cost\": {}}}", "placement.cells.w.kind: \"Pod\" is not Service or Database"),
        ("{\"format_version\": 2, \(valid), \"resources\": [], \"placement\": {\"cells\": {\"w\": {\"kind\": \"Service\", \"replicas\": {\"c\": 0}}}, \"cdn\": {}, \"cost\": {}}}", "placement.cells.w.replicas.c: expected a positive integer"),
        ("{\"format_version\": 2, \(valid), \"resources\": [], \"placement\": {\"cells\": {}, \"cdn\": {}, \"cost\": {\"currency\": \"RUB\", \"monthly\": \"1\", \"byCloud\": {}, \"byCell\": {}, \"byCDN\": {}}}}", "placement.cost.monthly: expected a number, found a string"),
        ("{\"format_version\": 1, \(valid), \"resources\": [], \"extra\": 1}", "extra: unknown field"),
        ("{\"format_version\": 1, \(valid), \"resources\": [], \"lost\": [\"c\"]}", "lost: unknown field"),
        ("{\"format_version\": 2, \(valid), \"resources\": [], \"lost\": [7]}", "lost[0]: not a cloud name"),
        ("{\"format_version\": 2, \(valid), \"resources\": [], \"retained\": [\"a\"]}", "retained[0]: not the address of a recorded resource"),
        ("{\"format_version\": 2, \(valid), \"resources\": [], \"primaries\": [\"a\"]}", "primaries: not an object"),
        ("{\"format_version\": 2, \(valid), \"resources\": [{\(resource), \"attributes\": {}}], \"primaries\": {\"a\": \"b\"}}", "primaries.a: not a pair of recorded resources' addresses"),
        ("{\"format_version\": 1, \(valid), \"serial\": 2, \"resources\": []}", "serial: given twice"),
        ("{\"format_version\": 1, \"serial\": 1, \"resources\": []}", "lineage: missing"),
        ("{\"format_version\": 1, \"lineage\": \"\", \"serial\": 1, \"resources\": []}", "lineage: must not be empty"),
        ("{\"format_version\": 1, \"lineage\": \"prod\", \"serial\": 1, \"resources\": []}", "lineage: \"prod\" is not a UUID"),
        ("{\"format_version\": 1, \"lineage\": \"0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f\", \"serial\": 1.5, \"resources\": []}", "serial: expected an integer, found a number"),
        ("{\"format_version\": 1, \"lineage\": \"0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f\", \"serial\": -1, \"resources\": []}", "serial: -1 is negative"),
        ("{\"format_version\": 1, \(valid)}", "resources: missing"),
        ("{\"format_version\": 1, \(valid), \"resources\": {}}", "resources: expected an array, found an object"),
        ("{\"format_version\": 1, \(valid), \"resources\": [null]}", "resources[0]: expected an object, found null"),
        ("{\"format_version\": 1, \(valid), \"resources\": [{\"provider\": \"kubernetes\", \"cloud\": \"c\", \"provider_id\": \"u\", \"attributes\": {}}]}", "resources[0].address: missing"),
        ("{\"format_version\": 1, \(valid), \"resources\": [{\(resource), \"attributes\": {}}, {\"address\": \"b\", \"provider\": 7, \"cloud\": \"c\", \"provider_id\": \"u\", \"attributes\": {}}]}", "resources[1].provider: expected a string, found a number"),
        ("{\"format_version\": 1, \(valid), \"resources\": [{\(resource), \"attributes\": []}]}", "resources[0].attributes: expected an object, found an array"),
        ("{\"format_version\": 1, \(valid), \"resources\": [{\(resource)}]}", "resources[0].attributes: missing"),
        ("{\"format_version\": 1, \(valid), \"resources\": [{\(resource), \"attributes\": {\"a\": 1, \"a\": 2}}]}", "resources[0].attributes.a: given twice"),
        ("{\"format_version\": 1, \(valid), \"resources\": [{\(resource), \"attributes\": {}, \"tainted\": true}]}", "resources[0].tainted: unknown field"),
        ("{\"format_version\": 1, \(valid), \"resources\": [{\(resource), \"attributes\": {}}, {\(resource), \"attributes\": {}}]}", "resources[1].address: a is also resources[0]"),
    ]

    @Test(arguments: malformed)
    func aMalformedStateIsRefusedNamingTheField(document: String, reason: String) {
        #expect(throws: StateError.corrupted(source: "state.json", reason: reason)) {
            try State.parse(Array(document.utf8), source: "state.json")
        }
    }

    @Test func aCorruptedStateMessageSaysItIsNeitherUsedNorOverwritten() {
        #expect(StateError.corrupted(source: ".mcloud/state.json", reason: "serial: missing").description
            == ".mcloud/state.json is not a valid mcloud state: serial: missing; mcloud will neither use nor overwrite it (fix it by hand or restore .mcloud/state.json.backup)")
    }
}
