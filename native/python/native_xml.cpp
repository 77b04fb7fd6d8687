// Cobertura's `<class>` elements at C speed: a report writes two `<line>` elements per statement line (its class's
// and its method's), which formatted in Python were most of `dotcov xml`'s own time. Only the bulk "numbers to
// text" is here; reports/cobertura.py decides everything else (every start tag's attributes: escaping, rates; what
// a branch line says). The element comes back as UTF-8 bytes, ready to write: no str to encode again.
#include "native_xml.h"
#include "py_objects.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace py = pybind11;

namespace {

using dotcov_py::SmallInt;

// A Python object's text: `str` as UTF-8 (cobertura.py has cleaned it of what XML cannot carry).
std::string_view Utf8(PyObject* s) {
  if (!PyUnicode_Check(s)) throw py::type_error("expected a str");
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s, &n);
  if (p == nullptr) throw py::error_already_set();
  return {p, static_cast<size_t>(n)};
}

// A bytes object written through a cursor, grown geometrically (one class: a few hundred kilobytes).
class Buffer {
 public:
  // `expected`: about what will be written (a class is written in one allocation when it is right).
  explicit Buffer(size_t expected = 1 << 16)
      : bytes_(py::reinterpret_steal<py::object>(
            PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(std::max<size_t>(expected, 1 << 12))))) {
    if (!bytes_) throw py::error_already_set();
  }

  // At least `n` writable bytes at the cursor; `Done` moves the cursor past what was written there.
  char* Room(size_t n) {
    size_t have = static_cast<size_t>(PyBytes_GET_SIZE(bytes_.ptr()));
    if (size_ + n > have) {
      PyObject* p = bytes_.release().ptr();
      if (_PyBytes_Resize(&p, static_cast<Py_ssize_t>(std::max(size_ + n, 2 * have))) != 0)
        throw py::error_already_set();  // (p is freed and NULL)
      bytes_ = py::reinterpret_steal<py::object>(p);
    }
    return PyBytes_AS_STRING(bytes_.ptr()) + size_;
  }
  void Done(char* end) { size_ = static_cast<size_t>(end - PyBytes_AS_STRING(bytes_.ptr())); }
  void Append(std::string_view s) { Done(Put(Room(s.size()), s)); }

  py::bytes Finish() {
    PyObject* p = bytes_.release().ptr();
    if (_PyBytes_Resize(&p, static_cast<Py_ssize_t>(size_)) != 0) throw py::error_already_set();
    return py::reinterpret_steal<py::bytes>(p);
  }

  static char* Put(char* at, std::string_view s) {
    std::memcpy(at, s.data(), s.size());
    return at + s.size();
  }

 private:
  py::object bytes_;
  size_t size_ = 0;
};

// An integer as Python's "%d" writes it: any number through int(), beyond 64 bits (a sum of counters can be) too.
void AppendInt(Buffer& out, PyObject* value) {
  long long v;
  if (SmallInt(value, &v)) {
    char* at = out.Room(24);
    out.Done(std::to_chars(at, at + 24, v).ptr);
    return;
  }
  py::object number = py::reinterpret_steal<py::object>(PyNumber_Long(value));
  if (!number) throw py::error_already_set();
  py::object text = py::reinterpret_steal<py::object>(PyObject_Str(number.ptr()));
  if (!text) throw py::error_already_set();
  out.Append(Utf8(text.ptr()));
}

// (line number, the dict's hits object), borrowed from the dict for the call's duration.
struct Entry {
  long long number;
  PyObject* value;
};

std::vector<Entry> SortedEntries(PyObject* dict) {
  std::vector<Entry> out;
  out.reserve(static_cast<size_t>(PyDict_GET_SIZE(dict)));
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  bool ascending = true;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    long long n;
    if (!SmallInt(key, &n)) {
      PyErr_Clear();
      throw py::type_error("line numbers must be ints within 64 bits");
    }
    ascending = ascending && (out.empty() || out.back().number < n);
    out.push_back({n, value});
  }
  if (!ascending) std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.number < b.number; });
  return out;
}

// `<line number="N" hits="H" branch="` (the start every line shares), ending with "False\" />\n" when `plain`, in
// one reservation of the buffer when the hits are a 64-bit int.
void AppendLineStart(Buffer& out, std::string_view indent, long long number, PyObject* hits, bool plain) {
  static constexpr std::string_view kNumber = "<line number=\"", kHits = "\" hits=\"", kBranch = "\" branch=\"",
                                    kPlainEnd = "False\" />\n";
  long long h;
  const bool small = SmallInt(hits, &h);
  char* at = Buffer::Put(out.Room(indent.size() + 128), indent);
  at = Buffer::Put(at, kNumber);
  at = std::to_chars(at, at + 24, number).ptr;
  at = Buffer::Put(at, kHits);
  if (!small) {
    out.Done(at);
    AppendInt(out, hits);
    at = out.Room(64);
  } else {
    at = std::to_chars(at, at + 24, h).ptr;
  }
  at = Buffer::Put(at, kBranch);
  out.Done(plain ? Buffer::Put(at, kPlainEnd) : at);
}

// The rest of a line with branch outcomes: cobertura.py's (condition-coverage attribute, `<condition>` texts, ...).
void AppendBranchLineEnd(Buffer& out, PyObject* outcomes, std::string_view indent) {
  if (!PyTuple_Check(outcomes) || PyTuple_GET_SIZE(outcomes) < 2 || !PyTuple_Check(PyTuple_GET_ITEM(outcomes, 1)))
    throw py::type_error("a branch line's outcomes are (condition-coverage str, tuple of <condition> str, ...)");
  PyObject* conditions = PyTuple_GET_ITEM(outcomes, 1);
  out.Append("True\" condition-coverage=\"");
  out.Append(Utf8(PyTuple_GET_ITEM(outcomes, 0)));
  Py_ssize_t n = PyTuple_GET_SIZE(conditions);
  if (n == 0) {
    out.Append("\" />\n");
    return;
  }
  out.Append("\">\n");
  out.Append(indent);
  out.Append("  <conditions>\n");
  for (Py_ssize_t i = 0; i < n; ++i) {
    out.Append(indent);
    out.Append("    ");
    out.Append(Utf8(PyTuple_GET_ITEM(conditions, i)));
    out.Append("\n");
  }
  out.Append(indent);
  out.Append("  </conditions>\n");
  out.Append(indent);
  out.Append("</line>\n");
}

// `<lines>` at `indent` (ending in a newline): each line of `lines` (number -> hits) in ascending order, plain
// (`branch="False"`) unless `branches` (number -> outcomes, see AppendBranchLineEnd) has it.
void AppendLines(Buffer& out, PyObject* lines, PyObject* branches, const std::string& indent) {
  if (!PyDict_Check(lines) || !PyDict_Check(branches)) throw py::type_error("lines and branches must be dicts");
  if (PyDict_GET_SIZE(lines) == 0) {
    out.Append(indent);
    out.Append("<lines />\n");
    return;
  }
  std::vector<Entry> entries = SortedEntries(lines);
  std::vector<Entry> special = SortedEntries(branches);
  std::string line_indent = indent + "  ";
  out.Append(indent);
  out.Append("<lines>\n");
  auto next = special.begin();
  for (const Entry& e : entries) {
    while (next != special.end() && next->number < e.number) ++next;
    const bool branch = next != special.end() && next->number == e.number;
    AppendLineStart(out, line_indent, e.number, e.value, !branch);
    if (branch) AppendBranchLineEnd(out, next->value, line_indent);
  }
  out.Append(indent);
  out.Append("</lines>\n");
}

// A list argument's item `i` (the columns of `methods` are lists of one length).
PyObject* Item(PyObject* list, Py_ssize_t i) { return PyList_GET_ITEM(list, i); }

// A `<class>` at `indent`, ending in a newline: its start tag `start` (cobertura.py makes it), then `<methods>` with
// each method's start tag, `<lines>` and end tag, then the class's own `<lines>`. `methods` is a tuple of columns,
// one item per method: (escaped names, escaped signatures, line rates, branch rates, complexities, lines,
// branches), each a list; the texts as they are written, lines and branches as AppendLines takes them. Each level
// of nesting two spaces further (xmlwriter.INDENT).
py::bytes CoberturaClass(py::str start, py::tuple methods, py::dict lines, py::dict branches, py::str indent) {
  const std::string at(Utf8(indent.ptr())), inner = at + "  ", method_at = inner + "  ", method_inner = method_at + "  ";
  if (methods.size() != 7) throw py::type_error("methods are (names, signatures, line rates, branch rates, "
                                                "complexities, lines, branches) lists");
  PyObject* columns[7];
  for (size_t c = 0; c < 7; ++c) {
    columns[c] = methods[c].ptr();
    if (!PyList_Check(columns[c])) throw py::type_error("each column of methods must be a list");
  }
  const Py_ssize_t count = PyList_GET_SIZE(columns[0]);
  for (PyObject* column : columns)
    if (PyList_GET_SIZE(column) != count) throw py::value_error("the columns of methods differ in length");
  // (about what a plain line takes, for the class's and its methods': most are plain)
  size_t lines_written = static_cast<size_t>(PyDict_Size(lines.ptr()));
  for (Py_ssize_t i = 0; i < count; ++i)
    if (PyDict_Check(Item(columns[5], i))) lines_written += static_cast<size_t>(PyDict_GET_SIZE(Item(columns[5], i)));
  Buffer out(lines_written * (method_inner.size() + 56) + static_cast<size_t>(count) * 256 + 1024);
  out.Append(at);
  out.Append(Utf8(start.ptr()));
  out.Append("\n");
  if (count == 0) {
    out.Append(inner);
    out.Append("<methods />\n");
  } else {
    out.Append(inner);
    out.Append("<methods>\n");
    for (Py_ssize_t i = 0; i < count; ++i) {
      out.Append(method_at);
      out.Append("<method name=\"");
      out.Append(Utf8(Item(columns[0], i)));
      out.Append("\" signature=\"");
      out.Append(Utf8(Item(columns[1], i)));
      out.Append("\" line-rate=\"");
      out.Append(Utf8(Item(columns[2], i)));
      out.Append("\" branch-rate=\"");
      out.Append(Utf8(Item(columns[3], i)));
      out.Append("\" complexity=\"");
      AppendInt(out, Item(columns[4], i));
      out.Append("\">\n");
      AppendLines(out, Item(columns[5], i), Item(columns[6], i), method_inner);
      out.Append(method_at);
      out.Append("</method>\n");
    }
    out.Append(inner);
    out.Append("</methods>\n");
  }
  AppendLines(out, lines.ptr(), branches.ptr(), inner);
  out.Append(at);
  out.Append("</class>\n");
  return out.Finish();
}

}  // namespace

void RegisterXml(py::module_& m) {
  m.def("cobertura_class", &CoberturaClass, py::arg("start"), py::arg("methods"), py::arg("lines"),
        py::arg("branches"), py::arg("indent"),
        "Cobertura's <class> element at `indent` as UTF-8 bytes, ending in a newline, from its start tag `start`, "
        "`methods` (columns: escaped names, escaped signatures, line rates, branch rates, complexities, lines, "
        "branches), and its own `lines` (number -> hits) and `branches` (number -> (condition-coverage, tuple of "
        "<condition> texts, ...)); lines in ascending order, those in `branches` as branch lines.");
}
