import Foundation

/// CPU time spent by processes, from `/proc`: a figure that holds still on a shared machine where latency under
/// saturation does not (the same build's p99 varied several-fold between runs on one day).
enum ProcessCPU {
    /// User plus system seconds of one process, or 0 where `/proc` cannot tell; with `reapedChildren`, plus those
    /// of its children that exited and were waited for.
    static func seconds(pid: Int32, reapedChildren: Bool = false) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name, which may hold spaces: state is the 3rd field, utime the 14th, stime the
        // 15th, the reaped children's cutime and cstime the 16th and 17th.
        let fields = stat[stat.index(after: afterName)...].split(separator: " ")
        guard fields.count > 14, let user = Double(fields[11]), let system = Double(fields[12]),
            let childrenUser = Double(fields[13]), let childrenSystem = Double(fields[14])
        else { return 0 }
        let ticks = user + system + (reapedChildren ? childrenUser + childrenSystem : 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Every PostgreSQL process on this machine, the backends serving the benchmark among them. A backend whose
    /// connection closed during the traffic (a pool shrinking when idle) is counted in the postmaster's children:
    /// summing the live processes alone lost all its CPU, setup included, and once put PostgreSQL at half its share.
    static func postgresSeconds() -> Double {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.reduce(0) { total, entry in
            guard let pid = Int32(entry),
                let name = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                name.hasPrefix("postgres")
            else { return total }
            return total + seconds(pid: pid, reapedChildren: true)
        }
    }
}
