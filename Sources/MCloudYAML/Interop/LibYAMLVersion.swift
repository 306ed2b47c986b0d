internal import CYAML

/// The version of the libyaml this build links, for `mcloud version`.
public enum LibYAMLVersion {
    public static var string: String { String(cString: yaml_get_version_string()) }
}
