import Dispatch
import Foundation
import ObjectGraph
import Streams

/// `swift run streams-demo`: a view model kept in sync with a SQLite store while a background
/// context edits it; with `--postgresql URL`, with a PostgreSQL database that other processes
/// edit too; with `--check`, a scripted two-process check (see ``TwoProcessCheck``).
@main
enum StreamsDemo {
    static func main() {
        let options: DemoOptions
        switch DemoOptions.parse(Array(CommandLine.arguments.dropFirst())) {
        case .success(let parsed?): options = parsed
        case .success(nil):
            print(DemoOptions.usage)
            return
        case .failure(let error):
            fail(error)
        }

        let container: PersistentContainer
        do {
            container = try PersistentContainer(model: DemoModel.make(), store: options.store, viewContextQueue: .main)
        } catch {
            fail(.store("cannot open the store: \(error)"))
        }
        if options.check || options.checkPeer != nil {
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    if let run = options.checkPeer {
                        TwoProcessCheck.runSecond(run: run, container: container)
                    } else {
                        TwoProcessCheck.runFirst(options: options, container: container)
                    }
                }
            }
            dispatchMain()
        }
        let label = options.name ?? (options.postgreSQL != nil ? "pid\(getpid())" : nil)
        let editor = BackgroundEditor(context: container.newBackgroundContext(name: "editor"), label: label) { message in
            DispatchQueue.main.async { finish(message: message, status: 1) }
        }
        do {
            try editor.seedIfEmpty()
        } catch {
            fail(.store("cannot write to the store: \(error)"))
        }

        let isTerminal = !options.plain && isatty(STDOUT_FILENO) != 0
        DispatchQueue.main.async {
            MainActor.assumeIsolated { run(container: container, editor: editor, options: options, isTerminal: isTerminal) }
        }
        dispatchMain()
    }

    /// Starts both forms of the board's view model on the view context (the main queue) and the
    /// editor, and stops after the options' duration.
    @MainActor
    static func run(container: PersistentContainer, editor: BackgroundEditor, options: DemoOptions, isTerminal: Bool) {
        let renderer = BoardRenderer(isTerminal: isTerminal, storeName: options.postgreSQL != nil ? "PostgreSQL" : options.inMemory ? "memory" : "SQLite")
        if isTerminal { print("\u{1B}[?25l", terminator: "") }  // hide the cursor while redrawing
        // The Combine form (changesPublisher + applyingChanges into @Published rows) keeps the
        // difference of each save; the Observation form is drawn beside it once it has changed.
        let viewModel = BoardViewModel(context: container.viewContext) { error in
            finish(message: "the live results failed: \(error)", status: 1)
        }
        let board = ObservableBoard(context: container.viewContext)
        board.onChange = { [weak viewModel, weak board] in
            guard let viewModel, let board, let difference = viewModel.lastDifference else { return }
            renderer.render(viewModel, board: board, difference: difference)
        }
        editor.start(every: options.interval)
        let summary = {
            "\(viewModel.differenceCount) differences applied; \(viewModel.rows.count) items on the board; "
                + "the observable board saw \(board.changesSeen) changes and shows the same rows: \(board.rows == viewModel.rows ? "yes" : "no")."
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + options.duration) {
            editor.stop()
            finish(message: summary(), status: 0, restoreCursor: isTerminal)
        }
        stopOnInterrupt {
            editor.stop()
            finish(message: "stopped: " + summary(), status: 0, restoreCursor: isTerminal)
        }
    }

    /// Prints `error` and exits with status 1 (2 for usage mistakes).
    static func fail(_ error: DemoError) -> Never {
        writeError("\(error)")
        if case .usage = error { exit(2) }
        exit(1)
    }

    static func finish(message: String, status: Int32, restoreCursor: Bool = true) -> Never {
        if restoreCursor, isatty(STDOUT_FILENO) != 0 { print("\u{1B}[?25h", terminator: "") }
        if status == 0 { print("\n" + message) } else { writeError("streams-demo: \(message)") }
        exit(status)
    }

    static func writeError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Runs `body` on the main queue on Ctrl-C instead of dying mid-redraw.
    static func stopOnInterrupt(_ body: @escaping () -> Void) {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
        source.setEventHandler(handler: body)
        source.resume()
        interruptSource = source
    }

    nonisolated(unsafe) private static var interruptSource: DispatchSourceSignal?  // set once, on the main queue
}
