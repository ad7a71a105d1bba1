//! The book in a real browser: builds it with mdbook, serves it on
//! 127.0.0.1, opens every page in headless Chromium at a 1280 px wide
//! viewport and fails on
//!
//! - a console error or an uncaught exception,
//! - a failed request (a load error or an HTTP status of 400 or more), or any
//!   request for something other than the local server,
//! - a link to a page or file the book does not have, or to a `#fragment`
//!   the target page does not have,
//! - a literal `{{#` that mdbook left unrendered,
//! - an image that did not load or has no alt text,
//! - a code or output block (or a table) wider than the content column.
//!
//! Before trusting itself with the book it runs the same checks on a small
//! fixture book (`tests/browser-fixture/`) with one of each defect, and
//! fails unless every one of them is reported: a checker that cannot see a
//! broken page would otherwise pass every book.
//!
//! It has its own harness (`harness = false`), like the GPU suite, so what it
//! did is always printed and it ends with `N passed, N failed, N skipped`.
//! Without Chromium (or mdbook) it prints `skipped: no browser` and counts a
//! skip; in CI, which installs both, that is a failure.

use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Log::LogEntryLevel, Network, Runtime::ConsoleAPICalledEventTypeOption};
use headless_chrome::{Browser, LaunchOptions, Tab};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const VIEWPORT: (u32, u32) = (1280, 900);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn work_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser")
}

fn runs_in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The first program of `names` that runs with `--version`.
fn find_program(names: &[PathBuf]) -> Option<PathBuf> {
    names.iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success())).cloned()
}

fn mdbook() -> Option<PathBuf> {
    let mut names: Vec<PathBuf> = std::env::var_os("MDBOOK").map(PathBuf::from).into_iter().collect();
    names.push("mdbook".into());
    if let Some(home) = std::env::var_os("HOME") {
        names.push(Path::new(&home).join(".cargo/bin/mdbook"));
    }
    find_program(&names)
}

/// Chromium or Chrome: `$CHROME`, else the usual names on `PATH`.
fn chromium() -> Option<PathBuf> {
    let mut names: Vec<PathBuf> = std::env::var_os("CHROME").map(PathBuf::from).into_iter().collect();
    names.extend(["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"].map(PathBuf::from));
    find_program(&names)
}

fn build_book(mdbook: &Path, src: &Path, dest: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dest);
    let out = Command::new(mdbook).arg("build").arg("-d").arg(dest).arg(src).output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("mdbook build {} failed:\n{}", src.display(), String::from_utf8_lossy(&out.stderr)))
    }
}

// ---------------------------------------------------------------------------
// A static file server for the built book, on 127.0.0.1 only.

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(OsStr::to_str).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css",
        "js" => "text/javascript",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "ttf" => "font/ttf",
        _ => "text/plain; charset=utf-8",
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The file a URL path names under `root`, if there is one.
fn file_for(root: &Path, url_path: &str) -> Option<PathBuf> {
    let path = percent_decode(url_path.split(['?', '#']).next().unwrap_or(""));
    if path.split('/').any(|part| part == "..") {
        return None;
    }
    let mut file = root.join(path.trim_start_matches('/'));
    if file.is_dir() {
        file = file.join("index.html");
    }
    file.is_file().then_some(file)
}

fn serve_one(root: &Path, stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let url_path = request_line.split_whitespace().nth(1).unwrap_or("/");
    let mut stream = stream;
    match file_for(root, url_path) {
        Some(file) => {
            let body = std::fs::read(&file)?;
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                content_type(&file),
                body.len()
            )?;
            stream.write_all(&body)
        }
        None => stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
    }
}

/// Serves `root` on a free port of 127.0.0.1 for the rest of the process.
fn serve(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || {
                let _ = serve_one(&root, stream);
            });
        }
    });
    origin
}

// ---------------------------------------------------------------------------
// What one page looks like from inside the browser.

/// Run in the page once it has loaded: waits for fonts, images and a frame of
/// layout, then reports links, ids, images, unrendered directives and blocks
/// wider than the content column, as one JSON string.
const INSPECT: &str = r#"(async () => {
  await document.fonts.ready;
  await Promise.all([...document.images].map(img => img.complete ? null :
    new Promise(done => { img.addEventListener('load', done); img.addEventListener('error', done); })));
  await new Promise(done => requestAnimationFrame(() => setTimeout(done, 50)));
  const main = document.querySelector('main') || document.body;
  const column = main.getBoundingClientRect();
  const describe = el => (el.textContent || '').trim().split('\n')[0].slice(0, 70);
  const wide = [];
  for (const el of main.querySelectorAll('pre, pre > code, table')) {
    const box = el.getBoundingClientRect();
    const scrolls = el.scrollWidth > el.clientWidth + 1;
    const sticksOut = box.right > column.right + 1;
    if (scrolls || sticksOut) {
      wide.push(`${el.tagName.toLowerCase()} ${Math.max(el.scrollWidth, Math.round(box.width))}px in a ${Math.round(column.width)}px column: "${describe(el)}"`);
    }
  }
  const text = main.textContent;
  const at = text.indexOf('{{#');
  return JSON.stringify({
    viewport: window.innerWidth,
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
    ids: [...document.querySelectorAll('[id], a[name]')].map(el => el.id || el.getAttribute('name')),
    images: [...document.images].map(img => ({
      src: img.currentSrc || img.src,
      loaded: img.complete && img.naturalWidth > 0,
      alt: (img.getAttribute('alt') || '').trim(),
    })),
    unrendered: at < 0 ? null : text.slice(at, at + 60).split('\n')[0],
    wide,
  });
})()"#;

#[derive(Default)]
struct PageReport {
    problems: Vec<String>,
    links: Vec<String>,
    ids: BTreeSet<String>,
}

/// Everything the browser says while a page loads.
#[derive(Default)]
struct Heard {
    messages: Vec<String>,
}

fn is_local(url: &str, origin: &str) -> bool {
    url.starts_with(origin) || url.starts_with("data:") || url.starts_with("blob:") || url.starts_with("about:")
}

fn listen(tab: &Tab, origin: &str, heard: Arc<Mutex<Heard>>) {
    tab.enable_log().expect("Log.enable");
    tab.enable_runtime().expect("Runtime.enable");
    tab.call_method(Network::Enable {
        max_total_buffer_size: None,
        max_resource_buffer_size: None,
        max_post_data_size: None,
        report_direct_socket_traffic: None,
        enable_durable_messages: None,
    })
    .expect("Network.enable");
    let origin = origin.to_string();
    let urls: Arc<Mutex<BTreeMap<String, String>>> = Default::default();
    tab.add_event_listener(Arc::new(move |event: &Event| {
        let note = |m: String| heard.lock().unwrap().messages.push(m);
        match event {
            Event::RuntimeConsoleAPICalled(e)
                if matches!(
                    e.params.Type,
                    ConsoleAPICalledEventTypeOption::Error | ConsoleAPICalledEventTypeOption::Assert
                ) =>
            {
                let text: Vec<String> = e
                    .params
                    .args
                    .iter()
                    .map(|a| a.value.as_ref().map(|v| v.to_string()).or(a.description.clone()).unwrap_or_default())
                    .collect();
                note(format!("console error: {}", text.join(" ")));
            }
            Event::RuntimeExceptionThrown(e) => {
                let d = &e.params.exception_details;
                let what = d.exception.as_ref().and_then(|x| x.description.clone()).unwrap_or_else(|| d.text.clone());
                note(format!("uncaught exception: {what}"));
            }
            Event::LogEntryAdded(e) if matches!(e.params.entry.level, LogEntryLevel::Error) => {
                let url = e.params.entry.url.clone().unwrap_or_default();
                note(format!("console error: {} {url}", e.params.entry.text));
            }
            Event::NetworkRequestWillBeSent(e) => {
                let url = &e.params.request.url;
                urls.lock().unwrap().insert(e.params.request_id.clone(), url.clone());
                if !is_local(url, &origin) {
                    note(format!("request leaves the local server: {url}"));
                }
            }
            Event::NetworkResponseReceived(e) if e.params.response.status >= 400 => {
                note(format!("failed request: HTTP {} for {}", e.params.response.status, e.params.response.url));
            }
            Event::NetworkLoadingFailed(e) => {
                let url = urls.lock().unwrap().get(&e.params.request_id).cloned().unwrap_or_default();
                note(format!("failed request: {} for {url}", e.params.error_text));
            }
            _ => {}
        }
    }))
    .expect("add a listener");
}

fn inspect(tab: &Tab, url: &str, heard: &Arc<Mutex<Heard>>) -> PageReport {
    heard.lock().unwrap().messages.clear();
    let mut report = PageReport::default();
    if let Err(e) = tab.navigate_to(url) {
        report.problems.push(format!("could not open: {e}"));
        return report;
    }
    // Wait for this page's load event (quicker than waiting for the network
    // to fall idle, which is what `wait_until_navigated` does).
    let loaded = format!("location.href === {url:?} && document.readyState === 'complete'");
    let mut waited = Duration::ZERO;
    while !tab.evaluate(&loaded, false).is_ok_and(|v| v.value == Some(serde_json::Value::Bool(true))) {
        if waited > Duration::from_secs(30) {
            report.problems.push("did not finish loading within 30 s".into());
            return report;
        }
        std::thread::sleep(Duration::from_millis(20));
        waited += Duration::from_millis(20);
    }
    let value = match tab.evaluate(INSPECT, true) {
        Ok(obj) => obj.value,
        Err(e) => {
            report.problems.push(format!("could not inspect: {e}"));
            return report;
        }
    };
    let Some(json) =
        value.as_ref().and_then(|v| v.as_str()).and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok())
    else {
        report.problems.push(format!("inspection returned {value:?}"));
        return report;
    };
    let strings = |key: &str| -> Vec<String> {
        json[key].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(String::from)).collect()
    };
    if json["viewport"].as_u64() != Some(VIEWPORT.0 as u64) {
        report.problems.push(format!("viewport is {} px wide, not {}", json["viewport"], VIEWPORT.0));
    }
    report.links = strings("links");
    report.ids = strings("ids").into_iter().collect();
    for img in json["images"].as_array().into_iter().flatten() {
        let src = img["src"].as_str().unwrap_or("");
        if img["loaded"] != serde_json::Value::Bool(true) {
            report.problems.push(format!("image did not load: {src}"));
        }
        if img["alt"].as_str().unwrap_or("").is_empty() {
            report.problems.push(format!("image has no alt text: {src}"));
        }
    }
    if let Some(text) = json["unrendered"].as_str() {
        report.problems.push(format!("unrendered mdbook directive: {text}"));
    }
    for w in strings("wide") {
        report.problems.push(format!("wider than the content column: {w}"));
    }
    report.problems.append(&mut heard.lock().unwrap().messages);
    report
}

/// Opens every HTML page under `dir` (served at `origin`) and returns each
/// page's problems, then the broken links and anchors across all of them.
fn check_site(browser: &Browser, dir: &Path, origin: &str) -> (BTreeMap<String, Vec<String>>, Vec<String>) {
    let mut pages: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // toc.html is not a page: it is the sidebar, framed for readers
        // without JavaScript; every page carries the same links through toc.js.
        .filter(|n| n.ends_with(".html") && n != "toc.html")
        .collect();
    pages.sort();
    let tab = browser.new_tab().expect("open a tab");
    tab.set_default_timeout(Duration::from_secs(30));
    let heard = Arc::new(Mutex::new(Heard::default()));
    listen(&tab, origin, heard.clone());
    let mut problems = BTreeMap::new();
    let mut reports = BTreeMap::new();
    for page in &pages {
        let report = inspect(&tab, &format!("{origin}/{page}"), &heard);
        problems.insert(page.clone(), report.problems.clone());
        reports.insert(page.clone(), report);
    }
    let _ = tab.close(false);

    let mut broken = BTreeSet::new();
    for (page, report) in &reports {
        for link in &report.links {
            let Some(rest) = link.strip_prefix(origin) else {
                continue; // not served by the book: no request is made for it here
            };
            let (path, fragment) = rest.split_once('#').unwrap_or((rest, ""));
            let path = path.split('?').next().unwrap_or("");
            let Some(file) = file_for(dir, path) else {
                broken.insert(format!("{page}: link to a missing page or file: {rest}"));
                continue;
            };
            if fragment.is_empty() {
                continue;
            }
            let target = file.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            match reports.get(&target) {
                Some(t) if t.ids.contains(&percent_decode(fragment)) => {}
                Some(_) => {
                    broken.insert(format!("{page}: link to a missing anchor: {rest}"));
                }
                None => {
                    broken.insert(format!("{page}: anchor into a file that is not a page: {rest}"));
                }
            }
        }
    }
    (problems, broken.into_iter().collect())
}

fn launch(chrome: &Path) -> Result<Browser, String> {
    let profile = work_dir().join("profile");
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).map_err(|e| e.to_string())?;
    // Nothing may leave this machine: every host name but the local server's
    // address fails to resolve, and the background services stay off.
    let args: Vec<&OsStr> = [
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-domain-reliability",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--hide-scrollbars",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    let options = LaunchOptions {
        headless: true,
        sandbox: false,
        enable_gpu: false,
        window_size: Some(VIEWPORT),
        path: Some(chrome.to_path_buf()),
        user_data_dir: Some(profile),
        args,
        idle_browser_timeout: Duration::from_secs(120),
        ..LaunchOptions::default()
    };
    Browser::new(options).map_err(|e| format!("could not start {}: {e}", chrome.display()))
}

struct Tally {
    passed: u32,
    failed: u32,
    skipped: u32,
}

impl Tally {
    fn check(&mut self, name: &str, problems: &[String]) {
        if problems.is_empty() {
            println!("{name}: ok");
            self.passed += 1;
        } else {
            println!("{name}: FAILED");
            for p in problems {
                println!("    {p}");
            }
            self.failed += 1;
        }
    }
}

/// The defects planted in the fixture's `broken.html`, each as a piece of the
/// message that must report it.
const PLANTED: [(&str, &str); 10] = [
    ("a console error", "console error: \"fixture: planted console error\""),
    ("an uncaught exception", "uncaught exception: Error: fixture: planted exception"),
    ("a failed request", "failed request: HTTP 404 for "),
    ("an image that does not load", "image did not load: "),
    ("an image without alt text", "image has no alt text: "),
    ("a request off the local server", "request leaves the local server: http://fixture.invalid/"),
    ("an unrendered directive", "unrendered mdbook directive: {{#include no-such-file.rs}}"),
    ("an overflowing output block", "wider than the content column: code "),
    ("a broken link", "link to a missing page or file: /no-such-page.html"),
    ("a broken anchor", "link to a missing anchor: /clean.html#no-such-heading"),
];

fn main() {
    let mut tally = Tally { passed: 0, failed: 0, skipped: 0 };
    let tools = (mdbook(), chromium());
    let (Some(mdbook), Some(chrome)) = tools else {
        let missing =
            if tools.0.is_none() { "mdbook (cargo install mdbook --locked --version 0.5.4)" } else { "chromium" };
        println!("book in a browser: skipped: no browser ({missing} not found)");
        tally.skipped += 1;
        if runs_in_ci() {
            println!("book in a browser: FAILED: CI installs {missing}, so it must be there");
            tally.failed += 1;
        }
        finish(tally);
    };
    let work = work_dir();
    let book = work.join("book");
    let fixture = work.join("fixture");
    for (src, dest) in [(root(), &book), (root().join("tests/browser-fixture"), &fixture)] {
        if let Err(e) = build_book(&mdbook, &src, dest) {
            tally.check("build", &[e]);
            finish(tally);
        }
    }
    let browser = match launch(&chrome) {
        Ok(b) => b,
        Err(e) => {
            tally.check("start chromium", &[e]);
            finish(tally);
        }
    };

    // First the checker itself, on pages broken on purpose.
    let origin = serve(fixture.clone());
    let (pages, broken) = check_site(&browser, &fixture, &origin);
    let clean = pages.get("clean.html").cloned().unwrap_or_else(|| vec!["clean.html was not checked".into()]);
    tally.check("fixture: a clean page passes", &clean);
    let mut found: Vec<String> = pages.get("broken.html").cloned().unwrap_or_default();
    found.extend(broken.iter().filter_map(|b| b.strip_prefix("broken.html: ").map(|m| m.replace(&origin, ""))));
    for (what, expect) in PLANTED {
        let seen = found.iter().any(|m| m.replace(&origin, "").contains(expect));
        let problem = format!("planted {what} was not reported (expected \"{expect}\"); reported: {found:#?}");
        tally.check(&format!("fixture: reports {what}"), if seen { &[] } else { std::slice::from_ref(&problem) });
    }

    // Then the book.
    let origin = serve(book.clone());
    let (pages, broken) = check_site(&browser, &book, &origin);
    for (page, problems) in &pages {
        let problems: Vec<String> = problems.iter().map(|p| p.replace(&origin, "")).collect();
        tally.check(&format!("book: {page}"), &problems);
    }
    let broken: Vec<String> = broken.iter().map(|p| p.replace(&origin, "")).collect();
    tally.check("book: links and anchors", &broken);
    if pages.len() < 10 {
        tally.check("book: page count", &[format!("only {} pages were found under {}", pages.len(), book.display())]);
    }
    finish(tally);
}

fn finish(t: Tally) -> ! {
    println!("{} passed, {} failed, {} skipped", t.passed, t.failed, t.skipped);
    std::process::exit(if t.failed > 0 { 1 } else { 0 });
}
