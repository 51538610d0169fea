//! One page to look at (`results/<host>/index.html`): a static page, no server, made from the
//! committed files of a host: the catalog table, its charts (trend, floor, CPU by role,
//! counters), the history, the peers and the scaling model, each linked to its raw files.
//!
//! The page holds one small script, run once it has loaded: it counts the images that did not
//! load and writes the count into `<body data-broken-images>`, which the browser test reads.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::summary::{load_host, Summary};

/// The charts of the catalog, in page order, with their captions.
const CATALOG_CHARTS: [(&str, &str); 6] = [
    (
        "trend",
        "Median wall time per experiment, with the significance of each step",
    ),
    (
        "floor",
        "Wall time against the floor: generation alone and encoding alone",
    ),
    (
        "cpu-by-role",
        "CPU seconds by role (one --counters run each)",
    ),
    ("ipc", "Instructions per cycle, or their labelled stand-ins"),
    ("counters", "Counters per experiment"),
    ("boxplot", "Every timed run"),
];

/// The other sections: folder, title, charts.
const SECTIONS: [(&str, &str, &[&str]); 3] = [
    (
        "peers",
        "Against other writers (make peers)",
        &["write_time", "file_size", "read_time"],
    ),
    (
        "scaling",
        "Scaling over processes and the bandwidth model (make scaling)",
        &["scaling", "model"],
    ),
    (
        "designs",
        "The pipeline's designs side by side (make designs)",
        &["wall", "peak_rss"],
    ),
];

/// Writes `host_dir/index.html`; returns its path.
///
/// # Errors
///
/// The host's summaries cannot be read, or the page cannot be written.
pub fn write(host_dir: &Path) -> Result<std::path::PathBuf> {
    let summaries = load_host(host_dir)?;
    let host = host_dir
        .file_name()
        .map_or_else(|| "host".to_string(), |n| n.to_string_lossy().into_owned());
    let page = render(host_dir, &host, &summaries);
    let path = host_dir.join("index.html");
    std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// The page of `host`, whose files are in `host_dir`.
pub fn render(host_dir: &Path, host: &str, summaries: &[Summary]) -> String {
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>shredlab results on {host}</title>\n<style>{STYLE}</style>\n</head>\n\
         <body data-broken-images=\"unknown\">\n<h1>shredlab results on <code>{host}</code></h1>\n\
         <p>Made by <code>make index</code> from the committed files of \
         <code>results/{host}/</code>; every figure links to the files it came from. \
         <a href=\"README.md\">README.md</a> explains the tables.</p>\n",
        host = escape(host)
    );
    catalog_table(&mut html, host_dir, summaries);
    charts(&mut html, host_dir, "", &CATALOG_CHARTS);
    history(&mut html, host_dir);
    for (folder, title, names) in SECTIONS {
        let dir = host_dir.join(folder);
        if !dir.is_dir() {
            continue;
        }
        let _ = writeln!(
            html,
            "<h2>{}</h2>\n<p><a href=\"{folder}/README.md\">{folder}/README.md</a></p>",
            escape(title)
        );
        let named: Vec<(&str, &str)> = names.iter().map(|n| (*n, *n)).collect();
        charts(&mut html, &dir, &format!("{folder}/"), &named);
    }
    html.push_str(CHECK_IMAGES);
    html.push_str("</body>\n</html>\n");
    html
}

/// The catalog: one row per experiment, linked to its summary and timeline.
fn catalog_table(html: &mut String, host_dir: &Path, summaries: &[Summary]) {
    if summaries.is_empty() {
        html.push_str("<p>No experiment has been measured on this host yet.</p>\n");
        return;
    }
    html.push_str(
        "<h2>The catalog</h2>\n<table>\n<tr><th>N</th><th>experiment</th><th>median s</th>\
         <th>M rows/s</th><th>cores busy</th><th>peak RSS MiB</th><th>gate</th>\
         <th>timeline</th></tr>\n",
    );
    for s in summaries {
        let folder = format!("{:02}-{}", s.experiment, s.slug);
        let timeline = match host_dir.join(&folder).join("timeline.png").is_file() {
            true => format!("<a href=\"{folder}/timeline.png\">threads</a>"),
            false => "-".to_string(),
        };
        let figure = |v: Option<f64>, decimals: usize| {
            v.map_or("-".to_string(), |v| format!("{v:.decimals$}"))
        };
        let _ = writeln!(
            html,
            "<tr><td>{:02}</td><td><a href=\"{folder}/summary.json\">{}</a></td>\
             <td>{:.3}</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{}</td><td>{timeline}</td></tr>",
            s.experiment,
            escape(&s.slug),
            s.median_s,
            s.rows_per_s / 1e6,
            figure(s.cores_busy, 2),
            figure(s.peak_rss_bytes.map(|b| b as f64 / 1048576.0), 0),
            if s.gate_passed { "pass" } else { "FAIL" },
        );
    }
    html.push_str("</table>\n");
}

/// The history's charts, where `make history` drew them.
fn history(html: &mut String, host_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(host_dir) else {
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .filter(|name| name.starts_with("history-") && name.ends_with(".png"))
        .map(|name| name.trim_end_matches(".png").to_string())
        .collect();
    if names.is_empty() {
        return;
    }
    names.sort();
    html.push_str(
        "<h2>Across commits (make history)</h2>\n<p><a href=\"history.md\">history.md</a> lists \
         the change points; <a href=\"history.jsonl\">history.jsonl</a> holds every run.</p>\n",
    );
    let named: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), n.as_str())).collect();
    charts(html, host_dir, "", &named);
}

/// Each chart of `names` (file stem, caption) that `dir` holds, as a figure linked to its SVG;
/// `prefix` is `dir`'s path from the page.
fn charts(html: &mut String, dir: &Path, prefix: &str, names: &[(&str, &str)]) {
    for (stem, caption) in names {
        if !dir.join(format!("{stem}.png")).is_file() {
            continue;
        }
        let _ = writeln!(
            html,
            "<figure><a href=\"{prefix}{stem}.svg\"><img src=\"{prefix}{stem}.png\" alt=\"{}\"></a>\
             <figcaption>{}</figcaption></figure>",
            escape(caption),
            escape(caption)
        );
    }
}

/// `text` safe inside HTML text and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\
td:nth-child(2){text-align:left}figure{margin:1em 0}img{max-width:100%}";

const CHECK_IMAGES: &str = "<script>\nwindow.addEventListener('load', function () {\n  \
var broken = Array.from(document.images).filter(function (i) { return !i.complete || i.naturalWidth === 0; });\n  \
document.body.dataset.brokenImages = String(broken.length);\n  \
broken.forEach(function (i) { console.error('image did not load: ' + i.getAttribute('src')); });\n});\n</script>\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_links_only_charts_that_exist() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("trend.png"), b"png").unwrap();
        std::fs::create_dir(dir.path().join("peers")).unwrap();
        std::fs::write(dir.path().join("peers/write_time.png"), b"png").unwrap();
        std::fs::write(dir.path().join("history-ab.png"), b"png").unwrap();
        let page = render(dir.path(), "a<b", &[]);
        assert!(page.contains("<img src=\"trend.png\""), "{page}");
        assert!(!page.contains("floor.png"), "no chart that is not there");
        assert!(page.contains("<img src=\"peers/write_time.png\""), "{page}");
        assert!(!page.contains("scaling"), "no section without its folder");
        assert!(page.contains("<img src=\"history-ab.png\""), "{page}");
        assert!(page.contains("results on <code>a&lt;b</code>"), "{page}");
        assert!(page.contains("No experiment has been measured"), "{page}");
    }
}
