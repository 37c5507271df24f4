import Foundation

/// CPU time spent by processes, from `/proc`: a figure that holds still on a shared machine where latency under
/// saturation does not (the same build's p99 spread 215–1,021 ms between runs on one day).
enum ProcessCPU {
    /// User plus system seconds of one process, or 0 where `/proc` cannot tell.
    static func seconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name, which may hold spaces: state is the 3rd field, utime the 14th, stime the
        // 15th.
        let fields = stat[stat.index(after: afterName)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Every PostgreSQL process on this machine, the backends serving the benchmark among them.
    static func postgresSeconds() -> Double {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.reduce(0) { total, entry in
            guard let pid = Int32(entry),
                let name = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                name.hasPrefix("postgres")
            else { return total }
            return total + seconds(pid: pid)
        }
    }
}
