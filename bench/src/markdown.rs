//! The one Markdown table writer of bench's reports: a header row, an alignment row (`---` for
//! a left-aligned column, `---:` for a right-aligned one) and a line per row, each cell between
//! single spaces and pipes (`| a | b |`), an empty cell as `| |`.
//!
//! Cells are written as given: they may hold Markdown (links, code spans, bold), and no report
//! puts a `|` in one, so nothing is escaped.

use std::fmt;

/// How a column's cells are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text: `---`.
    Left,
    /// Figures: `---:`.
    Right,
}

/// A Markdown table: its columns, then its rows; `Display` renders it, every line ending in a
/// newline.
#[derive(Debug, Clone)]
pub struct Table {
    columns: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these columns (name, alignment) and no rows yet.
    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = (S, Align)>) -> Self {
        Self {
            columns: columns
                .into_iter()
                .map(|(name, align)| (name.into(), align))
                .collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row, one cell per column.
    ///
    /// # Panics
    ///
    /// When the row does not have one cell per column.
    pub fn row<C: fmt::Display>(&mut self, cells: impl IntoIterator<Item = C>) -> &mut Self {
        let row: Vec<String> = cells.into_iter().map(|cell| cell.to_string()).collect();
        assert_eq!(
            row.len(),
            self.columns.len(),
            "a Markdown row needs one cell per column: {row:?}"
        );
        self.rows.push(row);
        self
    }

    /// How many rows it has (the header and alignment rows not counted).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether it has no rows yet.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// One line of cells: `| a | b |`, an empty cell as `| |`.
fn line<'a>(f: &mut fmt::Formatter<'_>, cells: impl Iterator<Item = &'a str>) -> fmt::Result {
    f.write_str("|")?;
    for cell in cells {
        if cell.is_empty() {
            f.write_str(" |")?;
        } else {
            write!(f, " {cell} |")?;
        }
    }
    f.write_str("\n")
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        line(f, self.columns.iter().map(|(name, _)| name.as_str()))?;
        f.write_str("|")?;
        for (_, align) in &self.columns {
            f.write_str(match align {
                Align::Left => "---|",
                Align::Right => "---:|",
            })?;
        }
        f.write_str("\n")?;
        for row in &self.rows {
            line(f, row.iter().map(String::as_str))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_renders_its_header_alignments_and_rows() {
        let mut table = Table::new([("side", Align::Left), ("share", Align::Right)]);
        table.row(["**a**", "1.0%"]).row(["", "2.0%"]);
        assert_eq!(table.len(), 2);
        assert_eq!(
            table.to_string(),
            "| side | share |\n|---|---:|\n| **a** | 1.0% |\n| | 2.0% |\n"
        );
        assert!(Table::new([("only", Align::Left)]).is_empty());
    }

    #[test]
    #[should_panic(expected = "one cell per column")]
    fn a_row_with_a_missing_cell_is_refused() {
        Table::new([("a", Align::Left), ("b", Align::Left)]).row(["x"]);
    }
}
