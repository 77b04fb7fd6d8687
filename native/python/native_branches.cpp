// branch_rows: the branch analysis' loop over a module's methods (analysis/branches/analyse.py states the rules it
// follows and calls it). Per method: the agent's counters grouped by branch, the method's sequence points sorted, the
// core's branch facts (branch_facts.h), each branch's containing point, its classification, the Debug
// short-circuit constants subtracted, each record's source text (source_slice), the records grouped by statement
// for their notes. What is rare stays Python, reached through `hooks` only for the methods that have it: switch
// arms, value probes' operators, operand probes, null tests' IL, and the notes' text rules (once per statement
// shape). Outcomes are hit_exprs codes: a counter's index, ("c", n), or (op, a, b).
#include "native_branches.h"
#include "py_objects.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "dotcov/branch_facts.h"
#include "dotcov/data_file.h"
#include "dotcov/il_method.h"

namespace py = pybind11;
using namespace dotcov;

namespace {

using dotcov_py::Steal;

constexpr uint32_t kSwitch = 0x45, kBrtrueS = 0x2D;  // (analysis/branches/il.py's opcodes)
bool Unary(uint32_t op) { return op == 0x2C || op == 0x2D || op == 0x39 || op == 0x3A; }

int64_t AsInt(PyObject* p) {
  long long v = PyLong_AsLongLong(p);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

// A hit_exprs code; a null handle is the int 0 hit_exprs adds as nothing (`0 + x` is x).
using Code = py::object;

Code Plus(const Code& a, const Code& b) {
  if (!a) return b;
  if (!b) return a;
  return py::make_tuple("+", a, b);
}

py::object Encode(const Code& c) {
  static PyObject* zero = py::make_tuple("c", 0).release().ptr();  // (immortal: shared, read-only)
  return c ? c : py::reinterpret_borrow<py::object>(zero);
}

py::tuple Tuple(std::initializer_list<py::object> items) {
  py::tuple t(items.size());
  size_t i = 0;
  for (const py::object& o : items) PyTuple_SET_ITEM(t.ptr(), i++, o.inc_ref().ptr());
  return t;
}

py::object Bool(bool b) { return py::reinterpret_borrow<py::object>(b ? Py_True : Py_False); }

// (kind, code) in the order the kinds first appeared, as the Python dicts keep them.
using Outcomes = std::vector<std::pair<uint32_t, Code>>;

void Add(Outcomes& o, uint32_t kind, const Code& code) {
  for (auto& [k, c] : o)
    if (k == kind) {
      c = Plus(c, code);
      return;
    }
  o.emplace_back(kind, code);
}

py::dict AsDict(const Outcomes& o) {
  py::dict d;
  for (const auto& [k, c] : o) d[py::int_(k)] = Encode(c);
  return d;
}

Outcomes FromCodes(const py::handle& kinds, const py::handle& codes) {
  Outcomes o;
  py::list k = py::reinterpret_borrow<py::list>(kinds), c = py::reinterpret_borrow<py::list>(codes);
  for (size_t i = 0; i < k.size() && i < c.size(); ++i) o.emplace_back(k[i].cast<uint32_t>(), c[i]);
  return o;
}

// A site column: an array('I') (datafiles' columns as read) read in place, else any sequence of ints.
class Column {
 public:
  explicit Column(const py::handle& o) {
    if (PyObject_CheckBuffer(o.ptr()) && PyObject_GetBuffer(o.ptr(), &view_, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) == 0) {
      if (view_.itemsize == 4 && view_.format != nullptr && std::string(view_.format) == "I") {
        words_ = static_cast<const uint32_t*>(view_.buf);
        size_ = view_.len / 4;
        return;
      }
      PyBuffer_Release(&view_);
      view_.obj = nullptr;
    }
    PyErr_Clear();
    fast_ = Steal(PySequence_Fast(o.ptr(), "site columns are sequences"));
    items_ = PySequence_Fast_ITEMS(fast_.ptr());
    size_ = PySequence_Fast_GET_SIZE(fast_.ptr());
  }
  ~Column() {
    if (view_.obj != nullptr) PyBuffer_Release(&view_);
  }
  Column(const Column&) = delete;
  Column& operator=(const Column&) = delete;
  Py_ssize_t size() const { return size_; }
  int64_t operator[](Py_ssize_t i) const { return words_ != nullptr ? words_[i] : AsInt(items_[i]); }
  py::object object(Py_ssize_t i) const {
    return words_ != nullptr ? Steal(PyLong_FromUnsignedLong(words_[i])) : py::reinterpret_borrow<py::object>(items_[i]);
  }

 private:
  Py_buffer view_{};
  const uint32_t* words_ = nullptr;
  py::object fast_;
  PyObject** items_ = nullptr;
  Py_ssize_t size_ = 0;
};

// A sequence point: its IL offset read at once, the rest when first needed (Load: most points are never a
// branch's, and a method's points come in IL order, so their offsets alone sort them).
struct Point {
  int64_t off;
  py::tuple tuple;
  mutable bool loaded = false;
  mutable int64_t sl = 0, sc = 0, el = 0, ec = 0, doc = 0;
};

const Point& Load(const Point& p) {
  if (!p.loaded) {
    PyObject* t = p.tuple.ptr();
    p.sl = AsInt(PyTuple_GET_ITEM(t, 1));
    p.sc = AsInt(PyTuple_GET_ITEM(t, 2));
    p.el = AsInt(PyTuple_GET_ITEM(t, 3));
    p.ec = AsInt(PyTuple_GET_ITEM(t, 4));
    p.doc = AsInt(PyTuple_GET_ITEM(t, 5));
    p.loaded = true;
  }
  return p;
}

bool operator<(const Point& a, const Point& b) {  // (as Python compares the tuples)
  if (a.off != b.off) return a.off < b.off;
  Load(a);
  Load(b);
  return std::tie(a.sl, a.sc, a.el, a.ec, a.doc) < std::tie(b.sl, b.sc, b.el, b.ec, b.doc);
}

// The last sequence point at or before `offset`, or -1: of the points at the greatest such IL offset, the last.
int Containing(const std::vector<Point>& points, int64_t offset) {
  int best = -1;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].off <= offset && (best < 0 || points[i].off >= points[best].off)) best = static_cast<int>(i);
  return best;
}

py::object Substring(const py::object& s, int64_t start, int64_t end) {
  const int64_t n = PyUnicode_GetLength(s.ptr());
  start = std::min(start, n);
  end = std::min(end, n);
  if (start >= end) return py::str("");
  return Steal(PyUnicode_Substring(s.ptr(), start, end));
}

py::object Strip(const py::object& s) {
  static PyObject* name = PyUnicode_InternFromString("strip");
  return Steal(PyObject_CallMethodNoArgs(s.ptr(), name));
}

// `line` without a trailing comment: a `mark` (VB's `'`, else `//`) outside a string literal and what follows it.
py::object Uncommented(const py::object& line, bool vb) {
  PyObject* s = line.ptr();
  const Py_ssize_t n = PyUnicode_GetLength(s);
  const int kind = PyUnicode_KIND(s);
  const void* data = PyUnicode_DATA(s);
  Py_UCS4 quoted = 0;
  bool escaped = false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    const Py_UCS4 c = PyUnicode_READ(kind, data, i);
    if (escaped) {
      escaped = false;
    } else if (quoted) {
      escaped = c == '\\';
      if (c == quoted) quoted = 0;
    } else if (c == '"' || (c == '\'' && !vb)) {
      quoted = c;
    } else if (vb ? c == '\'' : (c == '/' && i + 1 < n && PyUnicode_READ(kind, data, i + 1) == '/')) {
      return Substring(line, 0, i);
    }
  }
  return line;
}

// A source file's text and where its lines are (as str.splitlines cuts them), each line made only when read.
class Source {
 public:
  explicit Source(py::object text) : text_(std::move(text)) {
    if (!PyUnicode_Check(text_.ptr())) return;
    PyObject* s = text_.ptr();
    const Py_ssize_t n = PyUnicode_GetLength(s);
    switch (PyUnicode_KIND(s)) {
      case PyUnicode_1BYTE_KIND: Index(PyUnicode_1BYTE_DATA(s), n); break;
      case PyUnicode_2BYTE_KIND: Index(PyUnicode_2BYTE_DATA(s), n); break;
      default: Index(PyUnicode_4BYTE_DATA(s), n); break;
    }
  }
  int64_t size() const { return static_cast<int64_t>(lines_.size()); }
  py::object line(int64_t i) const { return Substring(text_, lines_[i].first, lines_[i].second); }

 private:
  py::object text_;
  std::vector<std::pair<Py_ssize_t, Py_ssize_t>> lines_;

  // (Py_UNICODE_ISLINEBREAK's characters, the ones str.splitlines cuts at: \n \v \f \r, 0x1C-0x1E, 0x85, U+2028/9)
  static bool LineBreak(Py_UCS4 c) {
    return c <= 0x1E ? (c >= 0x0A && c <= 0x0D) || c >= 0x1C : c == 0x85 || c == 0x2028 || c == 0x2029;
  }
  template <typename Char>
  void Index(const Char* data, Py_ssize_t n) {
    Py_ssize_t start = 0;
    for (Py_ssize_t i = 0; i < n; ++i) {
      const Py_UCS4 c = data[i];
      if (!LineBreak(c)) continue;
      lines_.emplace_back(start, i);
      if (c == '\r' && i + 1 < n && data[i + 1] == '\n') ++i;
      start = i + 1;
    }
    if (start < n) lines_.emplace_back(start, n);
  }
};

// The whole source text of a sequence point, over several lines too ("" when unreadable).
py::object Span(const Source& source, const Point& p) {
  Load(p);
  const int64_t n = source.size();
  if (n == 0 || !(0 < p.sl && p.sl <= p.el && p.el <= n) || p.sc <= 0 || p.ec <= 0) return py::str("");
  py::object last = source.line(p.el - 1);
  py::object text = last;
  if (p.sl != p.el) {
    py::list lines;
    for (int64_t i = p.sl - 1; i < p.el; ++i) lines.append(source.line(i));
    text = Steal(PyUnicode_Join(py::str("\n").ptr(), lines.ptr()));
  }
  const int64_t len = PyUnicode_GetLength(text.ptr());
  return Substring(text, p.sc - 1, len - PyUnicode_GetLength(last.ptr()) + p.ec - 1);
}

// The source text of a sequence point, whole; over several lines joined into one (each line stripped, its
// trailing comment and VB's ` _` continuation dropped), so a condition split over lines is read as written.
py::object Slice(const Source& source, bool vb, const Point& p) {
  Load(p);
  if (p.sl == p.el && p.ec <= p.sc) return py::str("");
  py::object text = Span(source, p);
  if (p.sl == p.el || PyUnicode_GetLength(text.ptr()) == 0) return Strip(text);
  py::list parts;
  py::object split = Steal(PyUnicode_Splitlines(text.ptr(), 0));
  for (const py::handle& line : split) {
    py::object part = Strip(Uncommented(py::reinterpret_borrow<py::object>(line), vb));
    const Py_ssize_t n = PyUnicode_GetLength(part.ptr());
    // (re.sub(r"\s_$", "", part): a whitespace and `_` ending it)
    if (n >= 2 && PyUnicode_ReadChar(part.ptr(), n - 1) == '_' &&
        Py_UNICODE_ISSPACE(PyUnicode_ReadChar(part.ptr(), n - 2)))
      part = Substring(part, 0, n - 2);
    part = Strip(part);
    if (PyUnicode_GetLength(part.ptr())) parts.append(part);
  }
  return Steal(PyUnicode_Join(py::str(" ").ptr(), parts.ptr()));
}

std::vector<Point> ReadPoints(const py::handle& list, bool sort = true) {
  std::vector<Point> out;
  bool in_order = true;
  for (const py::handle& t : list) {
    py::tuple tup = py::reinterpret_borrow<py::object>(t);
    if (tup.size() != 6) throw py::value_error("a sequence point is not 6 values");
    Point p{AsInt(PyTuple_GET_ITEM(tup.ptr(), 0)), tup};
    in_order = in_order && (out.empty() || out.back().off < p.off);
    out.push_back(std::move(p));
  }
  if (sort && !in_order) std::stable_sort(out.begin(), out.end());
  return out;
}

struct Doc {
  py::object path;  // None: the document is not mapped
  bool fsharp = false, vb = false;
  std::optional<Source> source;
  int may_switch = -1;
};

struct Record {
  py::object token, offset, path, line;
  int64_t sort_offset;
  Outcomes outcomes;
  py::object generated, text, arms, notes, unclassified;
  bool is_switch;
};

struct Entry {  // one statement's branch, for notes.py
  uint32_t opcode;
  size_t record;
  bool written, ref;
};

struct Group {  // a (token, offset)'s counters
  int64_t offset;
  py::object offset_obj;
  Outcomes outcomes;
};

class Analysis {
 public:
  Analysis(py::dict raw, py::dict bodies, py::object hooks, py::tuple names, bool read_sources)
      : raw_(std::move(raw)), bodies_(std::move(bodies)), hooks_(std::move(hooks)), names_(std::move(names)),
        read_sources_(read_sources) {
    sequence_points_ = raw_["sequence_points"];
    methods_ = raw_["methods"];
    attributes_ = raw_.attr("get")("attributes");
    kickoff_ = raw_["kickoff"];
    hidden_all_ = raw_.attr("get")("hidden_points");
    compiler_generated_method_ = hooks_.attr("compiler_generated_method");
  }

  py::list Run(const py::object& tokens, const py::object& offsets, const py::object& kinds);

 private:
  Doc& DocOf(int64_t doc) {
    auto it = docs_.find(doc);
    if (it != docs_.end()) return it->second;
    Doc d;
    d.path = hooks_.attr("path_of_doc")(doc);
    if (!d.path.is_none()) {
      d.fsharp = d.path.attr("endswith")(py::make_tuple(".fs", ".fsx", ".fsi")).cast<bool>();
      d.vb = d.path.attr("endswith")(".vb").cast<bool>();
    }
    return docs_.emplace(doc, std::move(d)).first->second;
  }
  const Source& Lines(Doc& d) {
    if (!d.source) d.source.emplace(hooks_.attr("text")(d.path));
    return *d.source;
  }
  py::object SliceOf(Doc& d, const Point& p) { return read_sources_ ? Slice(Lines(d), d.vb, p) : py::object(empty_); }
  void Method(int64_t rid, const std::vector<size_t>& counted, const std::vector<size_t>& values,
              const std::vector<size_t>& operands);
  void Method(int64_t rid, const std::vector<size_t>& counted, const std::vector<size_t>& values,
              const std::vector<size_t>& operands, const py::object& points);

  py::dict raw_, bodies_;
  py::object hooks_;
  py::object sequence_points_, methods_, attributes_, kickoff_, hidden_all_;
  py::object compiler_generated_method_;
  py::str unreadable_{"its IL could not be read from the assembly"}, whole_method_{"compiler-generated method"},
      not_in_il_{"not a branch in the method's IL"}, whole_condition_{"whole condition, counted per operand"},
      before_first_{"before the first sequence point"}, empty_{""};
  py::tuple names_;
  bool read_sources_;
  std::vector<Group> groups_;
  std::unordered_map<int64_t, Doc> docs_;
  std::vector<Record> records_;
  py::dict said_;  // notes.py's notes of each statement shape
};

py::list Analysis::Run(const py::object& tokens, const py::object& offsets, const py::object& kinds) {
  const uint32_t value_false = kValueFalse, value_true = kValueTrue, operand_skipped = kOperandSkipped,
                 operand_true = kOperandTrue;
  // (token, offset, family) -> group; each method's groups of each family in first-seen order.
  std::map<int64_t, std::vector<size_t>[3]> methods;
  std::unordered_map<int64_t, std::unordered_map<int64_t, size_t>> index[3];
  const Column tk(tokens), of(offsets), kd(kinds);
  const Py_ssize_t n = std::min({tk.size(), of.size(), kd.size()});
  for (Py_ssize_t i = 0; i < n; ++i) {
    const int64_t kind = kd[i];
    if (kind == 0) continue;  // (a sequence point's counter)
    int family;
    if (kind >= 1 && kind < value_false) family = 0;
    else if (kind == value_false || kind == value_true) family = 1;
    else if (kind >= operand_skipped && kind <= operand_true) family = 2;
    else continue;
    const int64_t token = tk[i], offset = of[i];
    auto& by_offset = index[family][token];
    auto [it, fresh] = by_offset.emplace(offset, groups_.size());
    if (fresh) {
      Group g{offset, of.object(i), {}};
      if (family == 1) g.outcomes = {{1, Code()}, {2, Code()}};
      if (family == 2)
        g.outcomes = {{operand_skipped, Code()}, {kOperandFalse, Code()}, {operand_true, Code()}};
      groups_.push_back(std::move(g));
      methods[token & 0x00FFFFFF][family].push_back(it->second);
    }
    const uint32_t k = family == 1 ? (kind == value_false ? 1 : 2) : static_cast<uint32_t>(kind);
    Add(groups_[it->second].outcomes, k, Steal(PyLong_FromSsize_t(i)));
  }
  for (auto& [rid, families] : methods) {
    for (auto& f : families)  // (by IL offset; Python's sorted over (offset, outcomes) pairs)
      std::stable_sort(f.begin(), f.end(), [&](size_t a, size_t b) { return groups_[a].offset < groups_[b].offset; });
    Method(rid, families[0], families[1], families[2]);
  }
  py::list out;
  for (Record& r : records_) {
    py::list kinds_out, codes;
    for (const auto& [k, c] : r.outcomes) {
      kinds_out.append(py::int_(k));
      codes.append(Encode(c));
    }
    out.append(Tuple({r.token, r.offset, r.path, r.line, kinds_out, codes, r.generated, Bool(r.is_switch), r.text,
                      r.arms, r.notes, r.unclassified}));
  }
  return out;
}

void Analysis::Method(int64_t rid, const std::vector<size_t>& counted, const std::vector<size_t>& values,
                      const std::vector<size_t>& operands) {
  py::int_ rid_obj(rid);
  PyObject* pts = PyDict_Check(sequence_points_.ptr()) ? PyDict_GetItemWithError(sequence_points_.ptr(), rid_obj.ptr())
                                                       : nullptr;
  if (pts == nullptr && PyErr_Occurred()) throw py::error_already_set();
  if (pts == nullptr && !PyDict_Check(sequence_points_.ptr()))
    return Method(rid, counted, values, operands, sequence_points_.attr("get")(rid_obj, py::list()));
  if (pts == nullptr) return;
  Method(rid, counted, values, operands, py::reinterpret_borrow<py::object>(pts));
}

void Analysis::Method(int64_t rid, const std::vector<size_t>& counted, const std::vector<size_t>& values,
                      const std::vector<size_t>& operands, const py::object& pts) {
  py::int_ rid_obj(rid);
  std::vector<Point> points = ReadPoints(pts);
  if (points.empty()) return;  // only hidden points (or none): nothing the user wrote to report against
  auto points_list = [&points] {
    py::list out;
    for (const Point& p : points) out.append(p.tuple);
    return out;
  };
  const int64_t count = PyObject_Length(methods_.ptr());
  if (count < 0) throw py::error_already_set();
  py::object name = empty_;
  if (rid <= count) {
    PyObject* row = PyList_Check(methods_.ptr()) && rid >= 1 ? PyList_GET_ITEM(methods_.ptr(), rid - 1) : nullptr;
    name = row != nullptr && PyTuple_Check(row) && PyTuple_GET_SIZE(row) > 0
               ? py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(row, 0))
               : py::object(methods_[py::int_(rid - 1)][py::int_(0)]);  // (any other shape, as Python indexes it)
  }
  py::object token = py::int_(0x06000000 | rid);
  py::object attrs = py::list();
  if (PyDict_Check(attributes_.ptr())) {
    PyObject* found = PyDict_GetItemWithError(attributes_.ptr(), token.ptr());
    if (found == nullptr && PyErr_Occurred()) throw py::error_already_set();
    if (found != nullptr) attrs = py::reinterpret_borrow<py::object>(found);
  } else if (!attributes_.is_none()) {
    attrs = attributes_.attr("get")(token, py::list());
  }
  const int contains = PySequence_Contains(kickoff_.ptr(), rid_obj.ptr());
  if (contains < 0) throw py::error_already_set();
  const bool move_next = contains == 1;
  const int whole_flag = PyObject_IsTrue(compiler_generated_method_(name, attrs, Bool(move_next)).ptr());
  if (whole_flag < 0) throw py::error_already_set();
  const bool whole_method = whole_flag == 1;

  std::optional<std::vector<il::BranchFacts>> facts;
  py::object unclassified = unreadable_;
  PyObject* body = PyDict_GetItemWithError(bodies_.ptr(), rid_obj.ptr());
  if (body == nullptr && PyErr_Occurred()) throw py::error_already_set();
  if (body != nullptr) {
    char* buffer = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(body, &buffer, &size) != 0) throw py::error_already_set();
    il::MethodBody m;
    std::string error;
    if (il::MethodBody::Decode(Bytes(reinterpret_cast<const uint8_t*>(buffer), static_cast<size_t>(size)), &m,
                               &error)) {
      il::MethodContext context;
      context.is_move_next = move_next;
      if (move_next) {
        if (!hidden_all_.is_none()) {
          std::vector<int64_t> hidden;
          for (const py::handle& h : hidden_all_.attr("get")(rid_obj, py::list())) hidden.push_back(AsInt(h.ptr()));
          context.hidden_offsets = std::move(hidden);
        }
        for (const Point& p : points) context.visible_offsets.push_back(p.off);
      }
      facts = il::AnalyseBranches(m, context);
      unclassified = py::none();
    } else {
      unclassified = py::str("its IL does not decode (" + error + ")");
    }
  }
  const bool il = facts.has_value();
  std::unordered_map<int64_t, const il::BranchFacts*> il_branches;
  if (il)
    for (const il::BranchFacts& f : *facts) il_branches[f.offset] = &f;

  // Short circuits compiled to `or`/`and` (short_circuit.py), confirmed by the source's operator.
  py::object combined = py::list();
  std::unordered_set<int64_t> whole;
  if (il && read_sources_ && !operands.empty()) {
    py::list items;
    for (size_t g : operands) items.append(py::make_tuple(groups_[g].offset_obj, AsDict(groups_[g].outcomes)));
    py::tuple found = hooks_.attr("operands")(rid_obj, points_list(), items);
    combined = found[0];
    for (const py::handle& w : found[1])
      if (!w.is_none()) whole.insert(AsInt(w.ptr()));
  }

  struct Row {
    size_t group;
    Outcomes outcomes;
    int point;
    const il::BranchFacts* b;
    py::object generated;
  };
  std::vector<Row> rows;
  for (size_t g : counted) {
    const int64_t offset = groups_[g].offset;
    int p = Containing(points, offset);
    auto found = il_branches.find(offset);
    const il::BranchFacts* b = found != il_branches.end() ? found->second : nullptr;
    py::object generated = py::none();
    if (b != nullptr) {
      const int r = static_cast<int>(b->recogniser);
      generated = whole_method ? whole_method_ : r >= 0 ? py::object(names_[r]) : py::none();
    }
    if (il && b == nullptr) generated = not_in_il_;
    if (generated.is_none() && whole.count(offset)) generated = whole_condition_;
    if (p < 0) {
      // Before the first point: in MoveNext the state-machine prologue; elsewhere e.g. a Release `switch`
      // statement's dispatch (under a hidden point). Either is reported on the method's first line.
      p = 0;
      if (il && move_next && generated.is_none()) generated = before_first_;
    }
    rows.push_back({g, groups_[g].outcomes, p, b, generated});
  }
  // Debug `a || b` / `a && b`: the last condition's own outcomes (short_circuit_constants), from the counters.
  std::unordered_map<int64_t, const Outcomes*> counts;
  for (size_t g : counted) counts[groups_[g].offset] = &groups_[g].outcomes;
  for (Row& row : rows) {
    if (row.b == nullptr || !row.generated.is_none() || !row.b->has_short_circuit) continue;
    Outcomes own;
    for (const auto& [k, h] : row.outcomes) {
      Code sum;
      if (k == 1 || k == 2)
        for (const auto& [o, kind] : row.b->subtract[k - 1]) {
          auto c = counts.find(o);
          if (c == counts.end()) continue;
          for (const auto& [k2, code] : *c->second)
            if (k2 == kind) sum = Plus(sum, code);
        }
      Code diff = !sum ? h : py::object(py::make_tuple("-", Encode(h), sum));
      own.emplace_back(k, diff ? Code(py::make_tuple("max0", diff, py::make_tuple("c", 0))) : Code());
    }
    row.outcomes = std::move(own);
  }
  // A switch's dispatch becomes one record with an outcome per arm (switch_arms.py), in the document of the
  // method's first point.
  std::unordered_set<int64_t> grouped;
  const int64_t first_doc = Load(points[0]).doc;
  Doc& first = DocOf(first_doc);
  if (il && read_sources_ && !first.path.is_none()) {
    if (first.may_switch < 0)
      first.may_switch = hooks_.attr("may_hold_switches")(first.path, first.fsharp, first.vb).cast<bool>();
    if (first.may_switch) {
      // Under a hidden point in MoveNext (Release async code loads the switch value from a hoisted field after
      // `GetResult()`), a dispatch the source confirms as a switch is the user's too.
      py::list user;
      for (const Row& row : rows) {
        if (row.b == nullptr) continue;
        if (!row.generated.is_none() && !row.generated.equal(py::str("hidden sequence point"))) continue;
        user.append(py::make_tuple(groups_[row.group].offset_obj, AsDict(row.outcomes)));
      }
      for (const py::handle& sw : hooks_.attr("switches")(rid_obj, points_list(), first_doc, user, first.path, first.fsharp, first.vb)) {
        py::tuple s = py::reinterpret_borrow<py::tuple>(sw);  // (offsets, line, kinds, codes, arms)
        py::list offs = s[0];
        for (const py::handle& o : offs) grouped.insert(AsInt(o.ptr()));
        records_.push_back({token, offs[0], first.path, s[1], AsInt(offs[0].ptr()), FromCodes(s[2], s[3]), py::none(),
                            py::str(""), s[4], py::none(), py::none(), true});
      }
    }
  }
  // (statement's point offset -> its branches, in first-seen order of the statements)
  std::vector<int64_t> statements;
  std::unordered_map<int64_t, std::vector<Entry>> by_statement;
  auto add_entry = [&](int64_t at, Entry e, bool sort) {
    auto [it, fresh] = by_statement.try_emplace(at);
    if (fresh) statements.push_back(at);
    it->second.push_back(e);
    if (sort)
      std::stable_sort(it->second.begin(), it->second.end(), [&](const Entry& a, const Entry& b) {
        return records_[a.record].sort_offset < records_[b.record].sort_offset;
      });
  };
  py::str null_word("null"), nothing_word("Nothing");
  for (Row& row : rows) {
    const Group& g = groups_[row.group];
    const Point& p = points[row.point];
    Doc& where = DocOf(Load(p).doc);
    if (grouped.count(g.offset) || where.path.is_none()) continue;
    const bool is_switch = row.b != nullptr && row.b->opcode == kSwitch;
    records_.push_back({token, g.offset_obj, where.path, p.tuple[size_t{1}], g.offset, std::move(row.outcomes),
                        row.generated, SliceOf(where, p), py::none(), py::none(), unclassified, is_switch});
    const Record& r = records_.back();
    if (row.b != nullptr && row.generated.is_none() && !is_switch) {
      // (tests_zero_comparison; a null test's jump may test the reference itself: notes.py)
      const bool ref = !row.b->tests_zero_comparison && Unary(row.b->opcode) &&
                       (PySequence_Contains(r.text.ptr(), null_word.ptr()) == 1 ||
                        PySequence_Contains(r.text.ptr(), nothing_word.ptr()) == 1) &&
                       hooks_.attr("jumps_on_reference")(rid_obj, g.offset_obj).cast<bool>();
      add_entry(p.off, {row.b->opcode, records_.size() - 1, row.b->tests_zero_comparison, ref}, false);
    }
  }
  // Conditions computed into a value (the agent's value probes): two outcomes each, read like a `brtrue`.
  for (size_t gi : values) {
    const Group& g = groups_[gi];
    const int found = Containing(points, g.offset);
    const Point& p = points[found < 0 ? 0 : found];
    Doc& where = DocOf(Load(p).doc);
    if (where.path.is_none()) continue;
    if (read_sources_ && !hooks_.attr("value_kept")(where.path, p.tuple).cast<bool>()) continue;
    py::object generated = whole_method ? py::object(whole_method_) : py::none();
    records_.push_back({token, g.offset_obj, where.path, p.tuple[size_t{1}], g.offset, g.outcomes, generated,
                        SliceOf(where, p), py::none(), py::none(), py::none(), false});
    if (generated.is_none()) add_entry(p.off, {kBrtrueS, records_.size() - 1, true, false}, true);
  }
  // Both operands of a short circuit compiled to `or`/`and`: two outcomes each, read like a `brtrue`.
  for (const py::handle& c : combined) {
    py::tuple parts = hooks_.attr("operand_rows")(c);  // (document, [(offset, kinds, codes)])
    Doc& where = DocOf(AsInt(parts[0].ptr()));
    py::object generated = whole_method ? py::object(whole_method_) : py::none();
    for (const py::handle& item : parts[1]) {
      py::tuple t = py::reinterpret_borrow<py::tuple>(item);
      const int64_t at = AsInt(t[0].ptr());
      const int found = Containing(points, at);
      const Point& q = points[found < 0 ? 0 : found];
      records_.push_back({token, t[0], where.path, q.tuple[size_t{1}], at, FromCodes(t[1], t[2]), generated,
                          Slice(Lines(where), where.vb, q), py::none(), py::none(), py::none(), false});
      if (generated.is_none()) add_entry(q.off, {kBrtrueS, records_.size() - 1, true, false}, true);
    }
  }
  // Missed outcomes in source terms (notes.py), per statement; once per distinct statement shape.
  for (int64_t at : statements) {
    const std::vector<Entry>& entries = by_statement[at];
    py::list key_parts;
    const py::object& text = records_[entries[0].record].text;
    key_parts.append(text);
    for (const Entry& e : entries) {
      py::object op = Steal(PyLong_FromUnsignedLong(e.opcode));
      key_parts.append(Tuple({op, Bool(e.written), Bool(e.ref)}));
    }
    py::tuple key(key_parts);
    py::object descriptions;
    PyObject* cached = PyDict_GetItemWithError(said_.ptr(), key.ptr());
    if (cached != nullptr) {
      descriptions = py::reinterpret_borrow<py::object>(cached);
    } else {
      if (PyErr_Occurred()) throw py::error_already_set();
      py::list rows_of;  // (notes.py reads no hits)
      for (const Entry& e : entries)
        rows_of.append(Tuple({Steal(PyLong_FromUnsignedLong(e.opcode)), py::none(), Bool(e.written), Bool(e.ref)}));
      descriptions = hooks_.attr("notes")(text, rows_of);
      said_[key] = descriptions;
    }
    size_t i = 0;
    for (const py::handle& d : descriptions) {
      if (i >= entries.size()) break;
      records_[entries[i++].record].notes = py::reinterpret_borrow<py::object>(d);
    }
  }
}

}  // namespace

void RegisterBranches(py::module_& m) {
  m.def(
      "branch_rows",
      [](const py::object& tokens, const py::object& offsets, const py::object& kinds, py::dict raw,
         py::dict bodies, py::object hooks, py::tuple recogniser_names, bool read_sources) {
        return Analysis(std::move(raw), std::move(bodies), std::move(hooks), std::move(recogniser_names),
                        read_sources)
            .Run(tokens, offsets, kinds);
      },
      py::arg("tokens"), py::arg("offsets"), py::arg("kinds"), py::arg("raw"), py::arg("bodies"), py::arg("hooks"),
      py::arg("recogniser_names"), py::arg("read_sources") = true,
      "analyse.py's branch records of a module's sites (tokens, offsets, kinds: site columns; counter i = site i) "
      "as tuples (method token, offset, path, line, outcome kinds, their hit_exprs codes, generated, is_switch, "
      "text, arms, notes, unclassified). raw: read_symbols' dict; bodies: {rid: method body}; hooks: analyse.py's "
      "rare rules (path_of_doc, text, compiler_generated_method, operands, operand_rows, may_hold_switches, "
      "switches, jumps_on_reference, value_kept, notes).");
  m.def(
      "containing_point",
      [](const py::object& points, int64_t offset) -> py::object {
        std::vector<Point> read = ReadPoints(points, false);
        const int found = Containing(read, offset);
        return found < 0 ? py::none() : py::object(read[found].tuple);
      },
      py::arg("points"), py::arg("offset"),
      "The last sequence point at or before IL offset `offset` (of those at the greatest such offset, the last), "
      "or None; points are read_symbols' (il_offset, start_line, start_col, end_line, end_col, document).");
  m.def(
      "source_slice",
      [](py::object text, py::tuple p, bool vb, bool whole) {
        if (p.size() != 6) throw py::value_error("a sequence point is not 6 values");
        Point q{AsInt(p[0].ptr()), p};
        const Source source(text);
        return whole ? Span(source, q) : Slice(source, vb, q);
      },
      py::arg("text"), py::arg("point"), py::arg("vb") = false, py::arg("span") = false,
      "The source text of a sequence point (il_offset, start_line, start_col, end_line, end_col, document) in "
      "`text` (a file's text, its lines as str.splitlines cuts them; None reads as no source): with span, its whole "
      "text over several lines "
      "too; else stripped, several lines joined by a space (each without its trailing comment, VB's `'` when vb, "
      "else `//`, and VB's ` _` continuation). \"\" when unreadable.");
}
