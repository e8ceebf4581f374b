extension WebClientPage {
  /// The page's icon, the same rounded gradient square as the logo in its header. Served at
  /// `/favicon.svg` (linked from the page) and at `/favicon.ico`, where browsers look by default.
  static let icon: [UInt8] = Array(
    #"""
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="#5c7cfa"/><stop offset=".55" stop-color="#3b5bdb"/>
    <stop offset="1" stop-color="#1b2132"/></linearGradient></defs>
    <rect width="32" height="32" rx="8" fill="url(#g)"/>
    <path d="M10 22V10l12 12V10" fill="none" stroke="#fff" stroke-width="3"
     stroke-linecap="round" stroke-linejoin="round"/>
    </svg>
    """#.utf8)
}
