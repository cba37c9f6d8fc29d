extension SVGChart {
    /// Horizontal bars: what the categories are (the y label) above them, then per category, its name (wrapped onto up to ``maximumNameLines`` lines, never cut short of
    /// that) with its annotation at the right of the name's last line (or on a line of its own when they do not fit
    /// side by side), then a bar per series over the drawing's width, its value after it.
    func horizontalBars() -> (Double, [String]) {
        let key = legend()
        let left = 8.0
        let barHeight = 13.0
        let gap = 3.0
        let maximum = series.flatMap(\.values).max() ?? 0
        let scale = Scale(maximum: maximum)
        // Room after the longest bar for its value.
        let plotWidth = Self.width - left - 8 - Self.textWidth(ReportText.count(scale.top)) - 4
        func x(_ value: Int) -> Double { left + Double(value) / Double(scale.top) * plotWidth }
        // What the names are, above them.
        var content =
            key.content + [text(yLabel, x: left, y: key.bottom + 12, anchor: "start", className: "axis-title")]
        var y = key.bottom + 20
        let top = y
        var rows: [String] = []
        for index in categories.indices {
            let note = index < annotations.count ? annotations[index] : ""
            let name = nameLines(categories[index], note: note)
            for (number, line) in name.lines.enumerated() {
                rows.append(
                    text(line, x: left, y: y + 12 + Double(number) * 16, anchor: "start", className: "category"))
            }
            if !note.isEmpty {
                let noteY = y + 12 + Double(name.noteOnOwnLine ? name.lines.count : name.lines.count - 1) * 16
                rows.append(text(note, x: Self.width - 8, y: noteY, anchor: "end", className: "muted"))
            }
            y += Double(name.lines.count + (name.noteOnOwnLine ? 1 : 0)) * 16 + 2
            for series in series {
                let value = series.values[index]
                let style =
                    categoryStyles.count == categories.count && self.series.count == 1
                    ? categoryStyles[index] : series.style
                rows.append(
                    "<rect class=\"s\(style)\" x=\"\(left.svg)\" y=\"\(y.svg)\" width=\"\((x(value) - left).svg)\""
                        + " height=\"\(barHeight.svg)\"><title>\(categories[index].htmlEscaped) "
                        + "\(series.name.htmlEscaped): \(ReportText.count(value))</title></rect>")
                rows.append(
                    text(
                        ReportText.count(value), x: x(value) + 4, y: y + barHeight - 2, anchor: "start",
                        className: "value"))
                y += barHeight + gap
            }
            y += 8
        }
        let bottom = y
        content.append("<g class=\"axis\">")
        for tick in stride(from: 0, through: scale.top, by: scale.step) {
            content.append(
                line(x1: x(tick), y1: top, x2: x(tick), y2: bottom, className: tick == 0 ? "axis-line" : "grid"))
            let anchor = tick == 0 ? "start" : tick == scale.top ? "end" : "middle"
            content.append(text(ReportText.count(tick), x: x(tick), y: bottom + 14, anchor: anchor))
        }
        content.append(text(xLabel, x: left + plotWidth / 2, y: bottom + 36, anchor: "middle", className: "axis-title"))
        content.append("</g>")
        return (bottom + 44, content + rows)
    }

    /// `name` in lines that fit the drawing, broken after `_`, `-`, `/`, `.` or a space where it can, at most
    /// ``maximumNameLines`` (the last ends in `…` only when even they cannot hold it); and whether `note` goes on a
    /// line of its own (it does not fit beside the last line).
    func nameLines(_ name: String, note: String) -> (lines: [String], noteOnOwnLine: Bool) {
        let room = Int((Self.width - 16) / Self.characterWidth)
        var lines: [String] = []
        var rest = Substring(name)
        while !rest.isEmpty {
            if lines.count == Self.maximumNameLines - 1, rest.count > room {
                lines.append(String(rest.prefix(room - 1)) + "…")
                break
            }
            guard rest.count > room else {
                lines.append(String(rest))
                break
            }
            let window = rest.prefix(room)
            let breakAfter = window.lastIndex { "_-/. ".contains($0) }
            let end = breakAfter.map { window.index(after: $0) } ?? window.endIndex
            let cut = end > window.index(window.startIndex, offsetBy: room / 2) ? end : window.endIndex
            lines.append(String(rest[..<cut]))
            rest = rest[cut...]
        }
        if lines.isEmpty { lines = [""] }
        let last = lines.last ?? ""
        let fits = Self.textWidth(last) + 12 + Self.textWidth(note) <= Self.width - 16
        return (lines, !note.isEmpty && !fits)
    }
}
