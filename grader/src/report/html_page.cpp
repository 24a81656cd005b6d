#include "report/html_page.h"

#include <cmath>
#include <cstdio>

#include "core/utf8.h"

namespace grader::html {

namespace {

// One sheet for the report and the dashboard. System fonts only (nothing is fetched); one column that narrows to a
// phone's width; tables scroll sideways rather than overflow; a long unbroken word in running text (a submission's
// path, a student's folder name) wraps rather than widening the page; print unfolds every folded section (there is
// no script to open them) and keeps the colours that carry meaning.
constexpr std::string_view style_sheet = R"css(
:root{--ink:#1d2330;--dim:#5b6475;--line:#d8dde6;--pass:#1a7f37;--part:#9a6700;--fail:#cf222e;--you:#0969da;
--base:#6e7781;--ref:#1a7f37;--bg:#fff;--panel:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:62rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.15rem;margin:1.6rem 0 .5rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:0 0 .3rem}
.meta{color:var(--dim);font-size:.9rem}
h1,h2,h3,p,li,summary,.item-head .name{overflow-wrap:anywhere}
.total{display:flex;align-items:baseline;gap:1rem;flex-wrap:wrap;margin:.8rem 0;padding:.8rem 1rem;
background:var(--panel);border-radius:.5rem}
.total .score{font-size:2.2rem;font-weight:700}
.status{display:inline-block;min-width:3.2rem;text-align:center;font-weight:700;font-size:.8rem;padding:.05rem .35rem;
border-radius:.25rem;color:#fff}
.s-pass{background:var(--pass)}.s-part{background:var(--part)}.s-fail{background:var(--fail)}.s-none{background:var(--base)}
.item{border:1px solid var(--line);border-radius:.5rem;padding:.6rem .8rem;margin:.6rem 0;break-inside:avoid}
.item-head{display:flex;gap:.6rem;align-items:baseline;flex-wrap:wrap}
.item-head .name{flex:1 1 16rem;font-weight:600}.item-head .pts{font-variant-numeric:tabular-nums}
.details{margin:.3rem 0}.next-step{margin:.4rem 0;padding:.4rem .6rem;border-left:4px solid var(--you);background:#eef5ff}
.warning{color:var(--part)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:.9rem;font-variant-numeric:tabular-nums}
td,th{padding:.15rem .6rem .15rem 0;text-align:left;vertical-align:top}th{color:var(--dim);font-weight:600}
pre{white-space:pre-wrap;word-break:break-word;background:var(--panel);padding:.6rem;border-radius:.4rem;font-size:.8rem}
details{margin:.4rem 0}summary{cursor:pointer;color:var(--dim)}
svg{width:100%;height:auto;display:block}
svg text{font:12px system-ui,sans-serif;fill:var(--ink)}
.axis{stroke:var(--ink);stroke-width:1}.grid{stroke:var(--line);stroke-width:1}
.ceiling{fill:none;stroke:#8c959f;stroke-width:2}.ceiling-label{fill:var(--dim)}
.pt-candidate{fill:var(--you);stroke:#fff;stroke-width:1}.pt-baseline{fill:#fff;stroke:var(--base);stroke-width:2}
.pt-reference{fill:none;stroke:var(--ref);stroke-width:2.5}
.legend{display:flex;gap:1rem;flex-wrap:wrap;font-size:.85rem;color:var(--dim)}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:50%;vertical-align:-.05rem;margin-right:.25rem}
.ladder .track{fill:var(--panel);stroke:var(--line)}.ladder .tier{stroke:var(--dim);stroke-width:1.5}
.ladder .full{stroke:var(--pass);stroke-width:3}.ladder .you{fill:var(--you)}
.bar{fill:var(--you)}
.source{font:.8rem/1.35 ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--panel);padding:.5rem;border-radius:.4rem;
overflow-x:auto}.source .src{white-space:pre;font-weight:600}.source .loc{color:var(--dim);display:inline-block;min-width:8rem}
.source .asm{white-space:pre;margin-left:2rem;color:var(--dim)}.source .fp{color:var(--ink);background:#fff3cd}
@media (max-width:40rem){body{font-size:15px}h1{font-size:1.15rem}main{padding:.6rem}.total .score{font-size:1.8rem}}
@media print{main{max-width:none}details::details-content{content-visibility:visible;display:block}summary{display:none}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}a{color:inherit}}
)css";

}  // namespace

std::string escape(std::string_view text) {
  const std::string valid = valid_utf8(text);
  std::string out;
  out.reserve(valid.size());
  for (char c : valid) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fixed(double value, int digits) {
  if (!std::isfinite(value)) value = 0;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string points(double score, double max) {
  auto shown = [](double v) { return std::fabs(v - std::round(v)) < 0.005 ? fixed(v, 0) : fixed(v, 1); };
  return shown(score) + " / " + shown(max);
}

std::string duration(double seconds) {
  if (seconds >= 1) return fixed(seconds, 3) + " s";
  if (seconds >= 1e-3) return fixed(seconds * 1e3, 2) + " ms";
  return fixed(seconds * 1e6, 1) + " us";
}

std::string page(std::string_view title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         // Nothing may be fetched: a report opened from a mail or an LMS must not call out.
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "img-src data:\">\n"
         "<title>" + escape(title) + "</title>\n<style>" + std::string(style_sheet) + "</style>\n</head>\n<body>\n<main>\n" +
         body + "</main>\n</body>\n</html>\n";
}

std::string folded(std::string_view summary, const std::string& body, bool open) {
  return std::string("<details") + (open ? " open" : "") + "><summary>" + escape(summary) + "</summary>\n" + body +
         "</details>\n";
}

std::string folded_text(std::string_view summary, std::string_view text) {
  return folded(summary, "<pre>" + escape(text) + "</pre>\n");
}

}  // namespace grader::html
