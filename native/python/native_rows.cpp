// The HTML report's file-page rows (one <div> per source line) at C speed, and the escaping rule the pages' titles
// and notes use. html/report.py decides what a page shows (which lines, their coloured text, the tests' cells);
// this writes the rows from those plain values as UTF-8 bytes, ready to write. Every value is read as Python would
// format it in an f-string, so odd input gives the text the Python rows gave or a Python exception, never a crash.
#include "native_rows.h"
#include "py_objects.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

using dotcov_py::SmallInt;
using dotcov_py::Steal;

// The UTF-8 of a str, lone surrogates written as "surrogatepass" writes them (as the page is encoded).
void AppendStr(std::string& out, PyObject* s) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s, &n);
  if (p != nullptr) {
    out.append(p, static_cast<size_t>(n));
    return;
  }
  if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) throw py::error_already_set();
  PyErr_Clear();
  py::object bytes = Steal(PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass"));
  out.append(PyBytes_AS_STRING(bytes.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(bytes.ptr())));
}

void AppendInt(std::string& out, long long v) {
  char digits[24];
  out.append(digits, static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, v).ptr - digits));
}

// `value` as an f-string writes it (`f"{value}"`).
void AppendFormatted(std::string& out, PyObject* value) {
  if (PyUnicode_CheckExact(value)) return AppendStr(out, value);
  long long v;
  if (SmallInt(value, &v)) return AppendInt(out, v);
  py::object text = Steal(PyObject_Format(value, nullptr));
  AppendStr(out, text.ptr());
}

// The escaping rule of the pages' own text (titles, notes, paths): & < > " ' as entities. Byte-wise on UTF-8 is
// exact: none of these bytes occurs inside a multi-byte character.
void AppendEscaped(std::string& out, std::string_view text) {
  size_t from = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char* entity;
    switch (text[i]) {
      case '&': entity = "&amp;"; break;
      case '<': entity = "&lt;"; break;
      case '>': entity = "&gt;"; break;
      case '"': entity = "&quot;"; break;
      case '\'': entity = "&#39;"; break;
      default: continue;
    }
    out.append(text.data() + from, i - from);
    out.append(entity);
    from = i + 1;
  }
  out.append(text.data() + from, text.size() - from);
}

py::object Escape(py::object text) {
  if (!PyUnicode_Check(text.ptr())) throw py::type_error("html_escape takes a str");
  std::string raw, out;
  AppendStr(raw, text.ptr());
  if (raw.find_first_of("&<>\"'") == std::string::npos && PyUnicode_CheckExact(text.ptr())) return text;
  AppendEscaped(out, raw);
  return Steal(PyUnicode_DecodeUTF8(out.data(), static_cast<Py_ssize_t>(out.size()), "surrogatepass"));
}

// A line's branch outcomes as its title and note say them, escaped: "C of T branch outcomes taken", then
// "; missed: " and the missed outcomes' texts joined by "; " when there are any. `branch` is (C, T, missed texts).
void AppendBranchText(std::string& out, PyObject* branch) {
  if (!PyTuple_Check(branch) || PyTuple_GET_SIZE(branch) != 3)
    throw py::type_error("a line's branches are (outcomes covered, outcomes, missed outcomes' texts)");
  std::string raw;
  AppendFormatted(raw, PyTuple_GET_ITEM(branch, 0));
  raw += " of ";
  AppendFormatted(raw, PyTuple_GET_ITEM(branch, 1));
  raw += " branch outcomes taken";
  PyObject* missed = PyTuple_GET_ITEM(branch, 2);
  int any = PyObject_IsTrue(missed);
  if (any < 0) throw py::error_already_set();
  if (any) {
    raw += "; missed: ";
    py::object items = Steal(PySequence_Fast(missed, "missed outcomes must be a sequence of str"));
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(items.ptr());
    for (Py_ssize_t i = 0; i < count; ++i) {
      PyObject* item = PySequence_Fast_GET_ITEM(items.ptr(), i);
      if (!PyUnicode_Check(item)) throw py::type_error("missed outcomes must be str");
      if (i) raw += "; ";
      AppendStr(raw, item);
    }
  }
  AppendEscaped(out, raw);
}

// `mapping.get(key)` (a new reference, or null when absent).
py::object Get(PyObject* mapping, PyObject* key) {
  if (PyDict_Check(mapping)) {
    PyObject* value = PyDict_GetItemWithError(mapping, key);
    if (value == nullptr && PyErr_Occurred()) throw py::error_already_set();
    return py::reinterpret_borrow<py::object>(value);
  }
  PyObject* value = PyObject_GetItem(mapping, key);
  if (value == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_KeyError)) throw py::error_already_set();
    PyErr_Clear();
  }
  return py::reinterpret_steal<py::object>(value);
}

bool Contains(PyObject* container, PyObject* key) {
  int found = PyAnySet_Check(container) ? PySet_Contains(container, key) : PySequence_Contains(container, key);
  if (found < 0) throw py::error_already_set();
  return found != 0;
}

bool NonEmpty(PyObject* container) {
  Py_ssize_t n = PyObject_Size(container);
  if (n < 0) throw py::error_already_set();
  return n > 0;
}

// `value` as an f-string writes it, in UTF-8: a view of the str's own UTF-8 when it can be, else of `spare`.
std::string_view FormattedView(PyObject* value, std::string& spare) {
  if (PyUnicode_CheckExact(value)) {
    Py_ssize_t n = 0;
    const char* p = PyUnicode_AsUTF8AndSize(value, &n);
    if (p != nullptr) return {p, static_cast<size_t>(n)};
    PyErr_Clear();  // (lone surrogates: AppendStr writes them)
  }
  spare.clear();
  AppendFormatted(spare, value);
  return spare;
}

// The rows' bytes, in memory kept from call to call (calls hold the GIL, so one at a time): a page's rows are
// hundreds of kilobytes, which fresh memory would take in page faults at every page.
class Buffer {
 public:
  ~Buffer() { std::free(data_); }
  char* Room(size_t n) {
    if (n > capacity_ - size_) Grow(n);
    return data_ + size_;
  }
  void Done(char* end) { size_ = static_cast<size_t>(end - data_); }
  std::string_view View() const { return {data_, size_}; }
  // Empty again; memory beyond what a big page needs goes back.
  void Clear() {
    size_ = 0;
    if (capacity_ > kKeep) {
      std::free(data_);
      data_ = nullptr;
      capacity_ = 0;
    }
  }
  static char* Put(char* at, std::string_view s) {
    std::memcpy(at, s.data(), s.size());
    return at + s.size();
  }

 private:
  static constexpr size_t kKeep = size_t{16} << 20;
  void Grow(size_t n) {
    size_t capacity = std::max(size_ + n, 2 * capacity_ + (1 << 16));
    char* p = static_cast<char*>(std::realloc(data_, capacity));
    if (p == nullptr) throw std::bad_alloc();
    data_ = p;
    capacity_ = capacity;
  }
  char* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

// The buffer kept from call to call, or null while a call uses it (a row's value formatted by Python code that
// makes rows too, or lets another thread make them): that call then uses a buffer of its own.
Buffer* shared_buffer = new Buffer();  // (never destroyed: no destructor runs after the interpreter is gone)

// A call's buffer: the shared one if free, given back (empty) when the call ends, however it ends.
class BufferLease {
 public:
  BufferLease() : shared_(std::exchange(shared_buffer, nullptr)) {
    if (shared_ == nullptr) own_ = std::make_unique<Buffer>();
  }
  ~BufferLease() {
    if (shared_ != nullptr) {
      shared_->Clear();
      shared_buffer = shared_;
    }
  }
  BufferLease(const BufferLease&) = delete;
  BufferLease& operator=(const BufferLease&) = delete;
  Buffer* get() { return shared_ != nullptr ? shared_ : own_.get(); }

 private:
  Buffer* shared_;
  std::unique_ptr<Buffer> own_;
};

constexpr std::string_view kEmptyCell = "<span class=\"ctx\"></span>";

class Rows {
 public:
  Rows(py::object source, py::object lines, py::object branches, py::object excluded, py::object not_measured,
       py::object cells)
      : lines_(lines.ptr()), branches_(branches.ptr()), excluded_(excluded.ptr()), not_measured_(not_measured.ptr()),
        cells_(cells.is_none() ? nullptr : cells.ptr()), out_(lease_.get()) {
    if (!source.is_none()) {
      source_ = Steal(PySequence_Fast(source.ptr(), "a page's source must be a sequence of lines"));
      nsrc_ = PySequence_Fast_GET_SIZE(source_.ptr());
    }
    any_excluded_ = NonEmpty(excluded_);
    any_not_measured_ = NonEmpty(not_measured_);
  }

  // The row of line `key`, an int (`n` its value when `fits`, else it lies beyond every source line); `key` null:
  // the int `n`, made only if needed. `found`: its hits and branch outcomes (borrowed), else looked up here.
  void Append(PyObject* key, long long n, bool fits, const PyObject* const* found = nullptr) {
    py::object made_key;
    auto key_object = [&]() {
      if (key == nullptr) {
        made_key = Steal(PyLong_FromLongLong(n));
        key = made_key.ptr();
      }
      return key;
    };
    py::object hits, branch;
    if (found != nullptr) {
      hits = py::reinterpret_borrow<py::object>(const_cast<PyObject*>(found[0]));
      branch = py::reinterpret_borrow<py::object>(const_cast<PyObject*>(found[1]));
    } else {
      hits = Get(lines_, key);
      branch = Get(branches_, key);
    }
    if (branch && branch.is_none()) branch = py::object();
    if (hits && hits.is_none()) hits = py::object();
    std::string_view cls;
    title_.clear();
    hits_text_.clear();
    bool note = false;
    py::object reason;
    if (any_excluded_ && Contains(excluded_, key_object())) {
      cls = "l exc";
      title_ = " title=\"excluded from coverage\"";
    } else if (any_not_measured_ && (reason = Get(not_measured_, key_object()))) {
      cls = "l nm";
      std::string raw = "not measured: ";
      AppendFormatted(raw, reason.ptr());
      title_ = " title=\"";
      AppendEscaped(title_, raw);
      title_ += '"';
    } else if (!hits) {
      cls = "l";
    } else if (IsZero(hits.ptr())) {
      cls = "l mis";
      hits_text_ = "0";
      title_ = " title=\"not run";
      if (branch) {
        title_ += "; ";
        AppendBranchText(title_, branch.ptr());
      }
      title_ += '"';
    } else {
      AppendFormatted(hits_text_, hits.ptr());
      note = branch && Partial(branch.ptr());
      cls = note ? "l par" : "l run";
      title_ = " title=\"run ";
      title_ += hits_text_;
      title_ += "\xc3\x97";  // the multiplication sign
      if (branch) {
        title_ += "; ";
        const size_t text_at = title_.size();
        AppendBranchText(title_, branch.ptr());
        if (note) note_.assign(title_, text_at, std::string::npos);
      }
      title_ += '"';
    }
    char digits[24];
    std::string_view number;
    long long small = n;
    if (key == nullptr || SmallInt(key, &small)) {
      number = {digits, static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, small).ptr - digits)};
    } else {
      number = FormattedView(key, number_);
    }
    std::string_view cell;
    if (cells_ != nullptr) cell = Cell(key_object(), hits);
    std::string_view src;
    // (the size read again: Python code run for this row may have changed a list)
    if (fits && n > 0 && n <= nsrc_ && n <= PySequence_Fast_GET_SIZE(source_.ptr()))
      src = FormattedView(PySequence_Fast_GET_ITEM(source_.ptr(), n - 1), source_text_);
    constexpr std::string_view kDiv = "<div class=\"", kId = "\" id=\"L", kLink = "><a class=\"ln\" href=\"#L",
                               kHits = "</a><span class=\"hits\">", kSrc = "</span>", kSrc2 = "<span class=\"src\">",
                               kNote = "<span class=\"note\">", kNoteEnd = "</span>", kEnd = "</span></div>";
    const size_t size = 1 + kDiv.size() + cls.size() + kId.size() + 3 * number.size() + 1 + title_.size() +
                        kLink.size() + 2 + kHits.size() + hits_text_.size() + kSrc.size() + cell.size() +
                        kSrc2.size() + src.size() + (note ? kNote.size() + note_.size() + kNoteEnd.size() : 0) +
                        kEnd.size();
    char* at = out_->Room(size);
    if (!first_) *at++ = '\n';
    first_ = false;
    at = Buffer::Put(at, kDiv);
    at = Buffer::Put(at, cls);
    at = Buffer::Put(at, kId);
    at = Buffer::Put(at, number);
    *at++ = '"';
    at = Buffer::Put(at, title_);
    at = Buffer::Put(at, kLink);
    at = Buffer::Put(at, number);
    *at++ = '"';
    *at++ = '>';
    at = Buffer::Put(at, number);
    at = Buffer::Put(at, kHits);
    at = Buffer::Put(at, hits_text_);
    at = Buffer::Put(at, kSrc);
    at = Buffer::Put(at, cell);
    at = Buffer::Put(at, kSrc2);
    at = Buffer::Put(at, src);
    if (note) {
      at = Buffer::Put(at, kNote);
      at = Buffer::Put(at, note_);
      at = Buffer::Put(at, kNoteEnd);
    }
    out_->Done(Buffer::Put(at, kEnd));
  }

  py::bytes Finish() {
    std::string_view rows = out_->View();
    return py::bytes(rows.data(), rows.size());
  }

 private:
  static bool IsZero(PyObject* hits) {
    long long v;
    if (SmallInt(hits, &v)) return v == 0;
    py::object zero = Steal(PyLong_FromLong(0));
    int eq = PyObject_RichCompareBool(hits, zero.ptr(), Py_EQ);
    if (eq < 0) throw py::error_already_set();
    return eq != 0;
  }

  // Some of the line's outcomes missed: covered < outcomes.
  static bool Partial(PyObject* branch) {
    int lt = PyObject_RichCompareBool(PyTuple_GET_ITEM(branch, 0), PyTuple_GET_ITEM(branch, 1), Py_LT);
    if (lt < 0) throw py::error_already_set();
    return lt != 0;
  }

  // The tests' cell: the line's own (`cells`) when it ran, else an empty one.
  std::string_view Cell(PyObject* key, const py::object& hits) {
    int ran = hits ? PyObject_IsTrue(hits.ptr()) : 0;
    if (ran < 0) throw py::error_already_set();
    cell_ = ran ? Get(cells_, key) : py::object();
    if (!cell_) return kEmptyCell;
    if (!PyUnicode_Check(cell_.ptr())) throw py::type_error("a line's tests cell must be a str");
    cell_text_.clear();
    AppendStr(cell_text_, cell_.ptr());
    return cell_text_;
  }

  PyObject* lines_;
  PyObject* branches_;
  PyObject* excluded_;
  PyObject* not_measured_;
  PyObject* cells_;
  py::object source_, cell_;
  Py_ssize_t nsrc_ = 0;
  bool any_excluded_ = false, any_not_measured_ = false, first_ = true;
  std::string title_, hits_text_, note_, number_, source_text_, cell_text_;  // (reused from row to row)
  BufferLease lease_;
  Buffer* out_;
};

// A dict's values by line, for the lines of a range, from a copy of the dict (so Python code run for a row cannot
// change what it holds): each row then finds its hits without making an int and hashing it. `Load` is false when
// the dict is not a plain one with int keys, or the range is far wider than the lines it holds: then rows look
// their values up (comparing keys as Python does).
class ByLine {
 public:
  bool Load(PyObject* mapping, long long start, long long stop, Py_ssize_t source_lines) {
    if (!PyDict_CheckExact(mapping)) return false;
    const Py_ssize_t size = PyDict_GET_SIZE(mapping);
    if (stop - start > 4 * static_cast<long long>(size + source_lines) + 4096) return false;
    copy_ = Steal(PyDict_Copy(mapping));
    start_ = start;
    values_.assign(static_cast<size_t>(std::max(stop - start, 0LL)), nullptr);
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(copy_.ptr(), &pos, &key, &value)) {
      long long n;
      if (!SmallInt(key, &n)) return false;
      if (n >= start && n < stop && value != Py_None) values_[static_cast<size_t>(n - start)] = value;
    }
    return true;
  }
  const PyObject* At(long long n) const { return values_[static_cast<size_t>(n - start_)]; }

 private:
  py::object copy_;
  std::vector<const PyObject*> values_;
  long long start_ = 0;
};

// See html/report.py's _line_rows for what each argument holds.
py::bytes LineRows(py::object numbers, py::object source, py::object lines, py::object branches, py::object excluded,
                   py::object not_measured, py::object cells) {
  Rows rows(source, lines, branches, excluded, not_measured, cells);
  if (PyRange_Check(numbers.ptr())) {
    long long start, stop, step;
    if (SmallInt(numbers.attr("start").ptr(), &start) && SmallInt(numbers.attr("stop").ptr(), &stop) &&
        SmallInt(numbers.attr("step").ptr(), &step) && step == 1) {
      ByLine hits, branch;
      const Py_ssize_t source_lines = source.is_none() ? 0 : PyObject_Size(source.ptr());
      if (source_lines < 0) throw py::error_already_set();
      if (hits.Load(lines.ptr(), start, stop, source_lines) && branch.Load(branches.ptr(), start, stop, source_lines)) {
        for (long long n = start; n < stop; ++n) {
          const PyObject* found[2] = {hits.At(n), branch.At(n)};
          rows.Append(nullptr, n, true, found);
        }
        return rows.Finish();
      }
      for (long long n = start; n < stop; ++n) {
        py::object key = Steal(PyLong_FromLongLong(n));
        rows.Append(key.ptr(), n, true);
      }
      return rows.Finish();
    }
  }
  py::object it = Steal(PyObject_GetIter(numbers.ptr()));
  while (PyObject* item = PyIter_Next(it.ptr())) {
    py::object key = py::reinterpret_steal<py::object>(item);
    if (!PyLong_Check(item)) throw py::type_error("line numbers must be ints");
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (n == -1 && PyErr_Occurred()) throw py::error_already_set();
    rows.Append(item, n, overflow == 0);
  }
  if (PyErr_Occurred()) throw py::error_already_set();
  return rows.Finish();
}

}  // namespace

void RegisterRows(py::module_& m) {
  m.def("html_escape", &Escape, py::arg("text"),
        "`text` with & < > \" ' as HTML entities (&amp; &lt; &gt; &quot; &#39;): the rule of the pages' own text.");
  m.def("html_line_rows", &LineRows, py::arg("numbers"), py::arg("source"), py::arg("lines"), py::arg("branches"),
        py::arg("excluded"), py::arg("not_measured"), py::arg("cells"),
        "The rows of a file page's lines `numbers`, joined by newlines, as UTF-8 bytes (html/report.py).");
}
