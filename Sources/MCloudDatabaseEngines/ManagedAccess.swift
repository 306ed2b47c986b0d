public import MCloudCore

/// What mcloud can give the clients of a cloud's managed database engine (docs/connectivity.md, "Managed
/// databases"), so that rendering, the plan's warnings and the providers agree: a user per dependent where the
/// cloud's API makes users, and the TLS its clients get there.
public enum ManagedAccess {
    /// Whether the cloud's managed offer makes a user per dependent through its own API: Trove's user API serves its
    /// `mysql` datastore only (Trove's manual, "Manage databases and users"); RDS makes no users through its API.
    public static func makesUsers(api: Cloud.API, engine: Engine?) -> Bool {
        api == .openstack && engine == .mysql
    }

    /// How a client's connection is encrypted where `makesUsers`: Trove lets nobody configure its guest's TLS, and
    /// MySQL 5.7 and later generate a self-signed certificate of their own at first start, so clients encrypt but
    /// cannot verify the server against a CA mcloud holds.
    public static func tls(api: Cloud.API, engine: Engine?) -> ClientAccess.TLS {
        makesUsers(api: api, engine: engine) ? .unverified : .verified
    }
}
