/// Decides, from a number's digits as written, whether it is exactly an integer within Int64.
enum ExactInteger {
  /// The integer `±integerDigits.fractionDigits × 10^exponent`, or nil when that is not an
  /// integer (a nonzero digit after the point) or does not fit in Int64.
  static func value(
    negative: Bool, integerDigits: some Collection<UInt8>, fractionDigits: some Collection<UInt8>,
    exponent: Int
  ) -> Int? {
    let all = Array(integerDigits) + Array(fractionDigits)
    // The power of ten the digits are multiplied by.
    var scale = exponent - fractionDigits.count
    // Leading zeros count for nothing (sliced off, not removed one by one: a body may hold
    // tens of thousands of them).
    guard let first = all.firstIndex(where: { $0 != UInt8(ascii: "0") }) else { return 0 }
    var end = all.endIndex
    // Trailing zeros can pay for a negative scale; any other digit there is a fraction.
    while scale < 0, end > first, all[end - 1] == UInt8(ascii: "0") {
      end -= 1
      scale += 1
    }
    let digits = all[first..<end]
    guard scale >= 0, digits.count + scale <= 19 else { return nil }
    var magnitude: UInt64 = 0
    for digit in digits {
      let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
      guard !overflow1, !overflow2 else { return nil }
      magnitude = sum
    }
    for _ in 0..<scale {
      let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
      guard !overflow else { return nil }
      magnitude = times10
    }
    if negative {
      guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
      return magnitude == UInt64(Int64.max) + 1 ? Int.min : -Int(magnitude)
    }
    guard magnitude <= UInt64(Int64.max) else { return nil }
    return Int(magnitude)
  }
}
