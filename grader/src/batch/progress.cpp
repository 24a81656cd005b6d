#include "batch/progress.h"

#include "core/utf8.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace grader {

namespace {

// A student id as a terminal line may show it: a folder name can hold any byte, including an escape sequence or a
// carriage return that would rewrite the TA's screen, or bytes that are not UTF-8.
std::string shown(const std::string& id) {
  std::string text = valid_utf8(id);
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text;
}

}  // namespace

namespace {

constexpr int bar_width = 20;

std::size_t terminal_columns() {
  winsize size{};
  if (::ioctl(2, TIOCGWINSZ, &size) == 0 && size.ws_col > 20) return size.ws_col;
  return 100;
}

std::string points(double value) {
  char text[32];
  std::snprintf(text, sizeof text, value == static_cast<long long>(value) ? "%.0f" : "%.1f", value);
  return text;
}

std::string padded(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

std::string short_duration(double seconds) {
  const long total = static_cast<long>(seconds + 0.5);
  char text[32];
  if (total >= 3600) std::snprintf(text, sizeof text, "%ldh%02ldm", total / 3600, total % 3600 / 60);
  else if (total >= 60) std::snprintf(text, sizeof text, "%ldm%02lds", total / 60, total % 60);
  else std::snprintf(text, sizeof text, "%lds", total);
  return text;
}

BatchProgress::BatchProgress(std::size_t total, bool terminal, std::ostream& out) : total_(total), terminal_(terminal), out_(out) {}

void BatchProgress::started(const std::string& id) {
  std::lock_guard lock(mutex_);
  in_flight_[id] = "starting";
  draw_locked();
}

void BatchProgress::step(const std::string& id, const std::string& line) {
  std::lock_guard lock(mutex_);
  in_flight_[id] = line;
  // The pipeline reports every case: a few redraws a second are enough to read.
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  draw_locked();
}

void BatchProgress::finished(const std::string& id, double score, double max_score, const std::string& status, double seconds) {
  std::lock_guard lock(mutex_);
  in_flight_.erase(id);
  ++done_;
  char time[32];
  std::snprintf(time, sizeof time, "%.1f s", seconds);
  if (terminal_) {
    clear_locked();
    out_ << "  " << padded(shown(id), 20) << " " << padded(points(score) + " / " + points(max_score), 10) << " "
         << padded(status, 16) << time << "\n";
    draw_locked();
  } else {
    out_ << "[" << done_ << "/" << total_ << "] " << shown(id) << ": " << points(score) << " / " << points(max_score) << ", "
         << status << " (" << time << ")" << std::endl;
  }
}

void BatchProgress::abandoned(const std::string& id, const std::string& why) {
  std::lock_guard lock(mutex_);
  in_flight_.erase(id);
  clear_locked();
  out_ << shown(id) << ": NOT graded: " << why << std::endl;
  draw_locked();
}

void BatchProgress::note(const std::string& line) {
  std::lock_guard lock(mutex_);
  clear_locked();
  out_ << line << "\n";
  draw_locked();
  out_ << std::flush;
}

void BatchProgress::close() {
  std::lock_guard lock(mutex_);
  clear_locked();
  out_ << std::flush;
}

void BatchProgress::clear_locked() {
  if (terminal_) out_ << "\r\033[K";
}

void BatchProgress::draw_locked() {
  if (!terminal_) return;
  last_draw_ = std::chrono::steady_clock::now();
  const int filled = total_ ? static_cast<int>(bar_width * done_ / total_) : bar_width;
  std::string line = "[" + std::string(filled, '#') + std::string(bar_width - filled, '.') + "]  " +
                     std::to_string(done_) + "/" + std::to_string(total_);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // Throughput so far, whatever the number of jobs: elapsed per finished student times those left.
  line += done_ ? "  ETA " + short_duration(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_))
                : "  ETA --";
  if (!in_flight_.empty()) {
    line += "  now:";
    bool first = true;
    for (const auto& [id, status] : in_flight_) {
      line += std::string(first ? " " : ", ") + shown(id) + " (" + status + ")";
      first = false;
    }
  }
  const std::size_t width = terminal_columns() - 1;
  if (line.size() > width) line = line.substr(0, width - 3) + "...";
  out_ << "\r\033[K" << line << std::flush;
}

}  // namespace grader
