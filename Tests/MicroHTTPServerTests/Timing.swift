import Glibc

/// The monotonic clock, in seconds.
func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// CPU time (user + system) used by this process so far, in seconds.
func processCPUSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
  let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
  return user + system
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Double = 2, _ condition: () -> Bool) -> Bool {
  let deadline = monotonicSeconds() + timeout
  while monotonicSeconds() < deadline {
    if condition() { return true }
    usleep(5000)
  }
  return condition()
}

func sleepSeconds(_ seconds: Double) {
  usleep(UInt32(seconds * 1_000_000))
}
