import Foundation
import MCloudCLI

/// Writes straight to a file descriptor, so output is never lost in a buffer at exit.
struct FileDescriptorOutput: TextOutput {
    let handle: FileHandle

    func write(_ text: String) {
        handle.write(Data(text.utf8))
    }
}

let context = CommandContext(
    stdout: FileDescriptorOutput(handle: .standardOutput),
    stderr: FileDescriptorOutput(handle: .standardError),
    environment: ProcessInfo.processInfo.environment,
    isTerminal: isatty(STDOUT_FILENO) == 1,
    readLine: { Swift.readLine() },
    handlesSignals: true
)
exit(await MCloud.main(Array(CommandLine.arguments.dropFirst()), context: context).rawValue)
