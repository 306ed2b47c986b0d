/// Time limits for requests to the test beds.
public enum BedTiming {
    /// Seconds one request to a bed may take, retries included. Far above what a bed needs: the test runner's
    /// cooperative threads (two on two cores) can be busy with CPU-bound tests for a minute or more, and a request
    /// whose continuation waits for a thread must not run out of time for that.
    public static let requestDeadline = 600.0
}
