import MCloudAWS
import MCloudOpenStack
import MCloudProvider

/// OpenStack and S3 failures in the engine's terms, with the cloud's own message and the address they concern.
enum ProviderFailure {
    static func wrap(_ error: OpenStackError, _ context: String) -> ProviderError {
        let message = "\(context): \(error.description)"
        switch error {
        case .capacity: return ProviderError(.capacity, message)
        case .configuration, .noEndpoint: return ProviderError(.unavailable, message)
        case .api(let fault) where fault.status == 401 || fault.status == 403: return ProviderError(.unauthorized, message)
        case .api(let fault) where fault.status == 409: return ProviderError(.conflict, message)
        default: return ProviderError(.failed, message)
        }
    }

    static func wrap(_ error: AWSError, _ context: String) -> ProviderError {
        let message = "\(context): \(error.description)"
        switch error {
        case .configuration: return ProviderError(.unavailable, message)
        case .service(let fault) where fault.status == 401 || fault.status == 403: return ProviderError(.unauthorized, message)
        case .service(let fault) where ["QuotaExceeded", "TooManyBuckets"].contains(fault.code): return ProviderError(.capacity, message)
        default: return ProviderError(.failed, message)
        }
    }
}
