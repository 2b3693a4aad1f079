/// An SVG line chart of a comparison: a value against the connection limit, one line per mode, with axis
/// labels and units.
struct HTMLChart {
    /// One line: a name, a colour and its points (limit, value), sorted by limit.
    struct Series {
        var name: String
        var color: String
        var points: [(x: Double, y: Double, label: String)]
    }

    var title: String
    var xTitle: String
    var yTitle: String
    var series: [Series]
    /// True: a tick and a marker at every point (a few limits); false: evenly spaced ticks and bare lines (a series
    /// over time).
    var pointsAreCategories = true
    /// The drawing's height; a row of small charts uses less.
    var height = HTMLChart.height

    static let width = 580.0
    static let height = 300.0
    static let left = 64.0
    static let right = 16.0
    static let top = 50.0
    static let bottom = 48.0

    /// The colour of a mode's line.
    static func color(ofSeries index: Int) -> String {
        ["#2563eb", "#ea580c", "#16a34a", "#9333ea"][index % 4]
    }

    /// The chart as an `<svg>` element.
    var svg: String {
        let xs = series.flatMap { $0.points.map(\.x) }
        let ys = series.flatMap { $0.points.map(\.y) }
        var lo = xs.min() ?? 0
        var hi = xs.max() ?? 1
        if hi <= lo { lo -= 1; hi += 1 }
        let yStep = HTMLText.niceStep(range: max(ys.max() ?? 1, 1e-9), maxTicks: 5)
        let yMax = max(((ys.max() ?? 1) / yStep).rounded(.up) * yStep, yStep)
        let plotW = Self.width - Self.left - Self.right
        let plotH = height - Self.top - Self.bottom
        let px = { (x: Double) in Self.left + (x - lo) / (hi - lo) * plotW }
        let py = { (y: Double) in Self.top + plotH - y / yMax * plotH }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(HTMLText.px(Self.width)) "
            + "\(HTMLText.px(height))\" width=\"100%\" role=\"img\">"
        out += "<text class=\"chart-title\" x=\"\(HTMLText.px(Self.left))\" y=\"20\">\(HTMLText.escape(title))</text>"
        var v = 0.0
        while v <= yMax + yStep / 1000 {
            out += "<line class=\"grid\" x1=\"\(HTMLText.px(Self.left))\" x2=\"\(HTMLText.px(Self.width - Self.right))\" "
                + "y1=\"\(HTMLText.px(py(v)))\" y2=\"\(HTMLText.px(py(v)))\"/>"
            out += "<text class=\"tick\" x=\"\(HTMLText.px(Self.left - 6))\" y=\"\(HTMLText.px(py(v) + 4))\" "
                + "text-anchor=\"end\">\(HTMLText.tick(v))</text>"
            v += yStep
        }
        let xStep = HTMLText.niceStep(range: max(hi - lo, 1e-9), maxTicks: 6)
        let xTicks = pointsAreCategories ? Set(xs).sorted()
            : stride(from: (lo / xStep).rounded(.up) * xStep, through: hi + xStep / 1000, by: xStep).map { $0 }
        for x in xTicks {
            out += "<line class=\"axis\" x1=\"\(HTMLText.px(px(x)))\" x2=\"\(HTMLText.px(px(x)))\" "
                + "y1=\"\(HTMLText.px(Self.top + plotH))\" y2=\"\(HTMLText.px(Self.top + plotH + 5))\"/>"
            out += "<text class=\"tick\" x=\"\(HTMLText.px(px(x)))\" y=\"\(HTMLText.px(Self.top + plotH + 18))\" "
                + "text-anchor=\"middle\">\(HTMLText.tick(x))</text>"
        }
        out += "<line class=\"axis\" x1=\"\(HTMLText.px(Self.left))\" x2=\"\(HTMLText.px(Self.width - Self.right))\" "
            + "y1=\"\(HTMLText.px(Self.top + plotH))\" y2=\"\(HTMLText.px(Self.top + plotH))\"/>"
        out += "<line class=\"axis\" x1=\"\(HTMLText.px(Self.left))\" x2=\"\(HTMLText.px(Self.left))\" "
            + "y1=\"\(HTMLText.px(Self.top))\" y2=\"\(HTMLText.px(Self.top + plotH))\"/>"
        out += "<text class=\"axis-title\" x=\"\(HTMLText.px(Self.left + plotW / 2))\" y=\"\(HTMLText.px(height - 8))\" "
            + "text-anchor=\"middle\">\(HTMLText.escape(xTitle))</text>"
        out += "<text class=\"axis-title\" transform=\"rotate(-90)\" x=\"\(HTMLText.px(-(Self.top + plotH / 2)))\" y=\"16\" "
            + "text-anchor=\"middle\">\(HTMLText.escape(yTitle))</text>"
        for (i, s) in series.enumerated() {
            let points = s.points.map { "\(HTMLText.px(px($0.x))),\(HTMLText.px(py($0.y)))" }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"2.5\" points=\"\(points)\"/>"
            for p in s.points where pointsAreCategories {
                out += "<circle cx=\"\(HTMLText.px(px(p.x)))\" cy=\"\(HTMLText.px(py(p.y)))\" r=\"4.5\" fill=\"\(s.color)\">"
                    + "<title>\(HTMLText.escape("\(s.name) @ \(p.label)"))</title></circle>"
            }
            guard !s.name.isEmpty else { continue }
            let lx = Self.width - Self.right - Double(series.count - i) * 120
            out += "<rect x=\"\(HTMLText.px(lx))\" y=\"30\" width=\"14\" height=\"4\" fill=\"\(s.color)\"/>"
            out += "<text class=\"tick\" x=\"\(HTMLText.px(lx + 18))\" y=\"36\">\(HTMLText.escape(s.name))</text>"
        }
        return out + "</svg>"
    }
}
