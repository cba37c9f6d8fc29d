import MeasurementEvents

/// A chart drawn as inline SVG text: lines over a series of dates, stacked columns, or horizontal bars
/// for named categories. Colours come from the page's CSS classes (`s1` to `s5`), so the same SVG reads
/// in light and dark schemes; the `viewBox` with `width: 100%` scales it to the width it gets.
///
/// The drawing is 320 units wide, about a phone's width, so that its text (12 units, 13 on a narrow screen) is
/// drawn at 11 px or more on a phone; a wider screen draws it larger, up to the page's `max-width`. Every text is
/// placed whole inside the drawing: category names wrap onto more lines instead of being cut (up to three lines;
/// the whole name is in the bar's title and in the table beside the chart).
///
/// Every text that can come from events (category names, annotations) is escaped.
///
/// ```swift
/// let chart = SVGChart(
///     id: "fig-failures", kind: .horizontalBars, title: "Failure reasons", xLabel: "failed navigations",
///     yLabel: "error", categories: ["timeout"], series: [.init(name: "failed", values: [3], style: 4)])
/// let svg = chart.svg(labelledBy: "fig-failures-caption")   // the id of the figure's caption
/// ```
struct SVGChart {
    /// How the values are drawn.
    enum Kind {
        /// One line per series across the categories (dates), a dot at each value.
        case lines
        /// One column per category, the series stacked bottom up.
        case stackedColumns
        /// One row per category: its name, then a bar per series.
        case horizontalBars
    }

    /// One series of values, one per category.
    struct Series {
        var name: String
        var values: [Int]
        /// The colour class `s1` to `s5`.
        var style: Int
    }

    /// The id of the figure; the SVG's title is `<id>-svg-title`.
    var id: String
    var kind: Kind
    var title: String
    var xLabel: String
    var yLabel: String
    var categories: [String]
    var series: [Series]
    /// A note per category shown beside its name in horizontal bars (for example a rate), or empty.
    var annotations: [String] = []
    /// For horizontal bars of one series: the colour class of each category's bar (the outbound types in their
    /// own colours); empty for the series' colour.
    var categoryStyles: [Int] = []

    static let width = 320.0
    /// The widest a character of the chart's text may be, in drawing units (13 px text, on a narrow screen).
    static let characterWidth = 7.4
    /// The most lines a category name takes in horizontal bars.
    static let maximumNameLines = 3

    /// The chart as an `<svg>` element with `role="img"`, labelled by `labelledBy` (the figure's caption).
    func svg(labelledBy: String) -> String {
        let titleID = "\(id)-svg-title"
        let body: (height: Double, content: [String])
        if categories.isEmpty || series.isEmpty {
            body = (
                80, [text("No events in this window.", x: Self.width / 2, y: 44, anchor: "middle", className: "muted")]
            )
        } else {
            switch kind {
            case .lines, .stackedColumns: body = columnsOrLines()
            case .horizontalBars: body = horizontalBars()
            }
        }
        return
            ([
                "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-labelledby=\"\(labelledBy) \(titleID)\""
                    + " viewBox=\"0 0 \(Self.width.svg) \(body.height.svg)\" class=\"chart\" preserveAspectRatio=\"xMidYMin meet\">",
                "<title id=\"\(titleID)\">\(title.htmlEscaped)</title>",
            ]
            + body.content + ["</svg>"]).joined(separator: "\n")
    }

    /// The width of `text` in drawing units, at most.
    static func textWidth(_ text: String) -> Double { Double(text.count) * characterWidth }

    // MARK: Lines and columns over categories (dates)

    private func columnsOrLines() -> (Double, [String]) {
        let key = legend()
        let totals = categories.indices.map { index in
            kind == .stackedColumns
                ? series.reduce(0) { $0 + $1.values[index] } : series.map { $0.values[index] }.max() ?? 0
        }
        let scale = Scale(maximum: totals.max() ?? 0)
        // Room for the rotated axis title, then for the widest tick label.
        let left = 24 + Self.textWidth(ReportText.count(scale.top)) + 6
        let right = 8.0
        let top = key.bottom + 2
        let plotHeight = 170.0
        let plotWidth = Self.width - left - right
        let bottom = top + plotHeight
        let height = bottom + 46
        func y(_ value: Int) -> Double { bottom - Double(value) / Double(scale.top) * plotHeight }
        let band = plotWidth / Double(categories.count)
        func x(_ index: Int) -> Double {
            kind == .lines && categories.count > 1
                ? left + Double(index) * plotWidth / Double(categories.count - 1) : left + band * (Double(index) + 0.5)
        }
        var content = key.content
        content += yAxis(scale: scale, left: left, right: Self.width - right, y: y, top: top, bottom: bottom)
        content.append("<g class=\"axis\">")
        content.append(line(x1: left, y1: bottom, x2: Self.width - right, y2: bottom, className: "axis-line"))
        for (index, anchor) in xTicks(plotWidth: plotWidth) {
            content.append(line(x1: x(index), y1: bottom, x2: x(index), y2: bottom + 4, className: "axis-line"))
            content.append(text(categories[index], x: x(index), y: bottom + 16, anchor: anchor))
        }
        content.append(text(xLabel, x: left + plotWidth / 2, y: height - 8, anchor: "middle", className: "axis-title"))
        content.append("</g>")
        content += marks(x: x, y: y, band: band)
        return (height, content)
    }

    /// The categories that get an x tick label, evenly spread, always the first and the last: the first starts at
    /// its tick, the last ends at its tick, the others are centred, so that none leaves the drawing.
    private func xTicks(plotWidth: Double) -> [(index: Int, anchor: String)] {
        let labelWidth = Self.textWidth(categories.max { $0.count < $1.count } ?? "")
        let fitting = Int((plotWidth + labelWidth) / (labelWidth + 12))
        let count = min(categories.count, max(1, fitting))
        guard count > 1 else { return [(0, "start")] }
        let indices = (0..<count).map { $0 * (categories.count - 1) / (count - 1) }
        return indices.enumerated().map { position, index in
            (index, position == 0 ? "start" : position == count - 1 ? "end" : "middle")
        }
    }

    /// The lines (with a dot per value, up to 62) or the stacked columns of every series.
    private func marks(x: (Int) -> Double, y: (Int) -> Double, band: Double) -> [String] {
        var content: [String] = []
        switch kind {
        case .lines:
            for series in series {
                let points = series.values.indices.map { "\(x($0).svg),\(y(series.values[$0]).svg)" }
                content.append("<g class=\"s\(series.style)\"><title>\(series.name.htmlEscaped)</title>")
                if points.count > 1 {
                    content.append("<polyline class=\"line\" points=\"\(points.joined(separator: " "))\"/>")
                }
                for index in series.values.indices where series.values.count <= 62 {
                    content.append("<circle cx=\"\(x(index).svg)\" cy=\"\(y(series.values[index]).svg)\" r=\"2.5\"/>")
                }
                content.append("</g>")
            }
        case .stackedColumns, .horizontalBars:
            let barWidth = max(1, band * 0.7)
            for series in series.indices.map({ ($0, self.series[$0]) }) {
                content.append("<g class=\"s\(series.1.style)\">")
                for index in categories.indices where series.1.values[index] > 0 {
                    let below = self.series[..<series.0].reduce(0) { $0 + $1.values[index] }
                    let top = y(below + series.1.values[index])
                    content.append(
                        "<rect x=\"\((x(index) - barWidth / 2).svg)\" y=\"\(top.svg)\" width=\"\(barWidth.svg)\""
                            + " height=\"\((y(below) - top).svg)\"><title>\(categories[index].htmlEscaped) "
                            + "\(series.1.name.htmlEscaped): \(ReportText.count(series.1.values[index]))</title></rect>"
                    )
                }
                content.append("</g>")
            }
        }
        return content
    }

    private func yAxis(
        scale: Scale, left: Double, right: Double, y: (Int) -> Double, top: Double, bottom: Double
    ) -> [String] {
        var content = ["<g class=\"axis\">"]
        for tick in stride(from: 0, through: scale.top, by: scale.step) {
            content.append(
                line(x1: left, y1: y(tick), x2: right, y2: y(tick), className: tick == 0 ? "axis-line" : "grid"))
            content.append(text(ReportText.count(tick), x: left - 6, y: y(tick) + 4, anchor: "end"))
        }
        let middle = (top + bottom) / 2
        content.append(
            "<text class=\"axis-title\" x=\"12\" y=\"\(middle.svg)\" text-anchor=\"middle\""
                + " transform=\"rotate(-90 12 \(middle.svg))\">\(yLabel.htmlEscaped)</text>")
        content.append("</g>")
        return content
    }

    // MARK: Parts

    /// The legend: a swatch and a name per series, wrapped onto more rows when they do not fit the width;
    /// empty for a single series (the title names it). Returns the y where the plot may start.
    func legend() -> (content: [String], bottom: Double) {
        guard series.count > 1 else { return ([], 12) }
        var content = ["<g class=\"legend\">"]
        let start = 8.0
        var x = start
        var y = 14.0
        for series in series {
            let itemWidth = 17 + Self.textWidth(series.name) + 10
            if x > start, x + itemWidth > Self.width {
                x = start
                y += 18
            }
            content.append(
                "<rect class=\"s\(series.style)\" x=\"\(x.svg)\" y=\"\((y - 10).svg)\" width=\"12\" height=\"12\" rx=\"2\"/>"
            )
            content.append(text(series.name, x: x + 17, y: y, anchor: "start"))
            x += itemWidth
        }
        content.append("</g>")
        return (content, y + 14)
    }

    func text(_ value: String, x: Double, y: Double, anchor: String, className: String? = nil) -> String {
        let classAttribute = className.map { " class=\"\($0)\"" } ?? ""
        return
            "<text\(classAttribute) x=\"\(x.svg)\" y=\"\(y.svg)\" text-anchor=\"\(anchor)\">\(value.htmlEscaped)</text>"
    }

    func line(x1: Double, y1: Double, x2: Double, y2: Double, className: String) -> String {
        "<line class=\"\(className)\" x1=\"\(x1.svg)\" y1=\"\(y1.svg)\" x2=\"\(x2.svg)\" y2=\"\(y2.svg)\"/>"
    }
}

/// A value axis from 0 to a round top (1, 2 or 5 times a power of ten per step), about four steps.
struct Scale {
    var step: Int
    var top: Int

    init(maximum: Int) {
        guard maximum > 0 else {
            (step, top) = (1, 1)
            return
        }
        let rough = Double(maximum) / 4
        var magnitude = 1
        while Double(magnitude) * 10 <= rough { magnitude *= 10 }
        let step = [1, 2, 5, 10].map { $0 * magnitude }.first { Double($0) >= rough } ?? magnitude * 10
        self.step = step
        self.top = (maximum + step - 1) / step * step
    }
}

extension Double {
    /// A coordinate with at most one decimal, as SVG wants it (`12`, `12.5`).
    var svg: String {
        let tenths = Int((self * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }
}
