#include "api/core/pickle_rewrite.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace kscope {
namespace {

// How an opcode's argument is laid out after its byte.
enum class Argument {
  kNone,
  kFixed,     // `size` bytes
  kLength1,   // a 1-byte length, then that many bytes
  kLength4,   // a 4-byte little-endian length, then that many bytes
  kLine,      // up to a newline
  kTwoLines,  // two newline-terminated lines
};

// What an opcode does to the stack (a mark counts as one entry).
enum class Effect {
  kFixed,     // pops `pops` values above the last mark, pushes `pushes`
  kMark,      // pushes a mark
  kToMark,    // pops everything down to the last mark, the mark too
  kCollapse,  // as kToMark, then pushes one value
  kStop,
};

struct Opcode {
  char code;
  Argument argument;
  int size;
  Effect effect;
  int pops;
  int pushes;
};

constexpr Opcode Push(char code, Argument argument, int size = 0) {
  return {code, argument, size, Effect::kFixed, 0, 1};
}
constexpr Opcode Fixed(char code, int pops, int pushes, Argument argument = Argument::kNone,
                       int size = 0) {
  return {code, argument, size, Effect::kFixed, pops, pushes};
}
constexpr Opcode Marked(char code, Effect effect, Argument argument = Argument::kNone) {
  return {code, argument, 0, effect, 0, 0};
}

// The opcodes of pickle protocols 0 to 2 (Python's Lib/pickle.py).
constexpr Opcode kOpcodes[] = {
    Push('I', Argument::kLine),
    Push('L', Argument::kLine),
    Push('F', Argument::kLine),
    Push('S', Argument::kLine),
    Push('V', Argument::kLine),
    Push('J', Argument::kFixed, 4),
    Push('K', Argument::kFixed, 1),
    Push('M', Argument::kFixed, 2),
    Push('G', Argument::kFixed, 8),
    Push('\x8a', Argument::kLength1),
    Push('\x8b', Argument::kLength4),
    Push('T', Argument::kLength4),
    Push('U', Argument::kLength1),
    Push('X', Argument::kLength4),
    Push('N', Argument::kNone),
    Push('\x88', Argument::kNone),
    Push('\x89', Argument::kNone),
    Push(')', Argument::kNone),
    Push(']', Argument::kNone),
    Push('}', Argument::kNone),
    Push('c', Argument::kTwoLines),
    Push('g', Argument::kLine),
    Push('h', Argument::kFixed, 1),
    Push('j', Argument::kFixed, 4),
    Push('P', Argument::kLine),
    Push('\x82', Argument::kFixed, 1),
    Push('\x83', Argument::kFixed, 2),
    Push('\x84', Argument::kFixed, 4),
    Fixed('2', 1, 2),
    Fixed('\x80', 0, 0, Argument::kFixed, 1),
    Fixed('p', 0, 0, Argument::kLine),
    Fixed('q', 0, 0, Argument::kFixed, 1),
    Fixed('r', 0, 0, Argument::kFixed, 4),
    Fixed('Q', 1, 1),
    Fixed('\x85', 1, 1),
    Fixed('0', 1, 0),
    Fixed('a', 2, 1),
    Fixed('b', 2, 1),
    Fixed('R', 2, 1),
    Fixed('\x86', 2, 1),
    Fixed('\x81', 2, 1),
    Fixed('s', 3, 1),
    Fixed('\x87', 3, 1),
    Marked('(', Effect::kMark),
    Marked('1', Effect::kToMark),
    Marked('e', Effect::kToMark),
    Marked('u', Effect::kToMark),
    Marked('t', Effect::kCollapse),
    Marked('l', Effect::kCollapse),
    Marked('d', Effect::kCollapse),
    Marked('o', Effect::kCollapse),
    Marked('i', Effect::kCollapse, Argument::kTwoLines),
    Marked('.', Effect::kStop),
};

constexpr absl::string_view kOrderedDict = "collections\nOrderedDict";

[[noreturn]] void Malformed(const std::string& what) { throw std::runtime_error(what); }

// One opcode as read: its table entry, where it lies in the input, its argument's bytes.
struct Parsed {
  const Opcode* op;
  std::size_t begin, end;
  absl::string_view argument;
};

// One opcode as written: where it begins in the output, the stack's depth before it, the memo
// key it stores to (if it does).
struct Written {
  std::size_t offset;
  std::size_t depth;
  std::optional<std::uint32_t> put;
};

std::uint32_t LittleEndian(absl::string_view bytes) {
  std::uint32_t v = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

class Rewriter {
 public:
  explicit Rewriter(absl::string_view in) : in_(in) {}

  std::string Run() {
    std::size_t pos = 0;
    while (true) {
      const Parsed p = Read(pos);
      const char code = p.op->code;
      if ((code == 'c' && p.argument == kOrderedDict) || (IsGet(code) && Named(p))) {
        pos = OrderedDict(p);
        continue;
      }
      if (IsGet(code) && dropped_.contains(MemoKey(p)))
        Malformed(
            absl::StrFormat("byte %d refers to an OrderedDict's attributes, which are "
                            "dropped",
                            p.begin));
      if (code == 'b' && BuildsOrderedDict()) {
        DropState();
      } else if (code == 's') {
        SetItem(p);
      } else {
        Write(p);
        if (code == '.') return std::move(out_);
      }
      pos = p.end;
    }
  }

 private:
  static bool IsGet(char code) { return code == 'g' || code == 'h' || code == 'j'; }
  static bool IsPut(char code) { return code == 'p' || code == 'q' || code == 'r'; }
  bool Named(const Parsed& p) const { return ordered_dict_memos_.contains(MemoKey(p)); }

  std::uint32_t MemoKey(const Parsed& p) const {
    if (p.op->argument == Argument::kFixed) return LittleEndian(p.argument);
    std::uint32_t key = 0;
    if (!absl::SimpleAtoi(p.argument, &key))
      Malformed(absl::StrFormat("byte %d: memo key '%s' is not a number", p.begin, p.argument));
    return key;
  }

  Parsed Read(std::size_t pos) const {
    if (pos >= in_.size()) Malformed("the pickle ends before its STOP opcode");
    const char code = in_[pos];
    const Opcode* op = nullptr;
    for (const Opcode& o : kOpcodes) {
      if (o.code == code) op = &o;
    }
    const auto byte = static_cast<unsigned char>(code);
    if (op == nullptr)
      Malformed(absl::StrFormat("pickle opcode 0x%02x at byte %d %s", byte, pos,
                                byte >= 0x8c ? "(protocol 3 and later) is not supported: save "
                                               "with torch.save's default pickle_protocol"
                                             : "is not a pickle opcode"));
    std::size_t begin = pos + 1, size = 0;
    const auto need = [&](std::size_t n) {
      if (in_.size() - begin < n)
        Malformed(
            absl::StrFormat("the pickle ends inside byte %d's "
                            "argument",
                            pos));
    };
    switch (op->argument) {
      case Argument::kNone: break;
      case Argument::kFixed: size = static_cast<std::size_t>(op->size); break;
      case Argument::kLength1:
        need(1);
        size = static_cast<unsigned char>(in_[begin]);
        begin += 1;
        break;
      case Argument::kLength4:
        need(4);
        size = LittleEndian(in_.substr(begin, 4));
        begin += 4;
        break;
      case Argument::kLine:
      case Argument::kTwoLines: {
        std::size_t newline = in_.find('\n', begin);
        if (op->argument == Argument::kTwoLines && newline != absl::string_view::npos)
          newline = in_.find('\n', newline + 1);
        if (newline == absl::string_view::npos)
          Malformed(absl::StrFormat("the pickle ends inside byte %d's argument", pos));
        return Parsed{op, pos, newline + 1, in_.substr(begin, newline - begin)};
      }
    }
    need(size);
    return Parsed{op, pos, begin + size, in_.substr(begin, size)};
  }

  // Copies p's bytes to the output and applies its effect on the depth.
  void Write(const Parsed& p) {
    std::optional<std::uint32_t> put;
    if (IsPut(p.op->code)) {
      put = MemoKey(p);
      ordered_dict_memos_.erase(*put);
      dropped_.erase(*put);
    }
    written_.push_back(Written{out_.size(), depth_, put});
    out_.append(in_.data() + p.begin, p.end - p.begin);
    Apply(*p.op, p.begin);
  }

  void Apply(const Opcode& op, std::size_t at) {
    const std::size_t floor = marks_.empty() ? 0 : marks_.back() + 1;
    switch (op.effect) {
      case Effect::kFixed:
        if (depth_ - floor < static_cast<std::size_t>(op.pops))
          Malformed(absl::StrFormat("opcode '%c' at byte %d pops an empty stack", op.code, at));
        depth_ = depth_ - op.pops + op.pushes;
        break;
      case Effect::kMark: marks_.push_back(depth_++); break;
      case Effect::kToMark:
      case Effect::kCollapse:
        if (marks_.empty())
          Malformed(absl::StrFormat("opcode '%c' at byte %d has no mark", op.code, at));
        depth_ = marks_.back() + (op.effect == Effect::kCollapse ? 1 : 0);
        marks_.pop_back();
        break;
      case Effect::kStop:
        if (depth_ - floor < 1) Malformed("the pickle stops with nothing on the stack");
        break;
    }
    ForgetOrderedDictsAboveTheStack();
  }

  // An OrderedDict made plain stays known while it is on the stack: positions at or above the
  // depth the stack has fallen to are forgotten.
  void ForgetOrderedDictsAboveTheStack() {
    while (!ordered_dicts_.empty() && ordered_dicts_.back() >= depth_) ordered_dicts_.pop_back();
  }

  // p starts OrderedDict(): `GLOBAL collections OrderedDict` [PUT k], or GET k of that memo,
  // then `EMPTY_TUPLE REDUCE`. Writes EMPTY_DICT instead; returns where the input goes on.
  std::size_t OrderedDict(const Parsed& p) {
    Parsed next = Read(p.end);
    if (IsPut(next.op->code)) {
      ordered_dict_memos_.insert(MemoKey(next));
      next = Read(next.end);
    }
    const auto refuse = [&] {
      Malformed(
          absl::StrFormat("collections.OrderedDict at byte %d is used other than as "
                          "OrderedDict()",
                          p.begin));
    };
    if (next.op->code != ')') refuse();
    const Parsed reduce = Read(next.end);
    if (reduce.op->code != 'R') refuse();
    ordered_dicts_.push_back(depth_);
    written_.push_back(Written{out_.size(), depth_, std::nullopt});
    out_.push_back('}');
    depth_ += 1;
    return reduce.end;
  }

  // Whether a BUILD now sets state on an OrderedDict made plain: the dict just below the top.
  bool BuildsOrderedDict() const {
    return depth_ >= 2 && !ordered_dicts_.empty() && ordered_dicts_.back() == depth_ - 2 &&
           (marks_.empty() || marks_.back() < depth_ - 2);
  }

  // The index of the last opcode written at `depth` (where the value now at that depth began).
  std::size_t LastWrittenAt(std::size_t depth) const {
    for (std::size_t i = written_.size(); i-- > 0;) {
      if (written_[i].depth == depth) return i;
    }
    Malformed(absl::StrFormat("no value begins at depth %d", depth));
  }

  // Drops the BUILD and its state: everything written since the state began (the last opcode
  // written at the depth the state sits at).
  void DropState() {
    const std::size_t first = LastWrittenAt(depth_ - 1);
    for (std::size_t i = first; i < written_.size(); ++i) {
      if (written_[i].put) dropped_.insert(*written_[i].put);
    }
    out_.resize(written_[first].offset);
    written_.resize(first);
    depth_ -= 1;
  }

  // `key value SETITEM` written as `MARK key value SETITEMS`: a mark goes in where the key began.
  void SetItem(const Parsed& p) {
    const std::size_t floor = marks_.empty() ? 0 : marks_.back() + 1;
    if (depth_ < floor + 3)
      Malformed(absl::StrFormat("opcode 's' at byte %d pops an empty stack", p.begin));
    const std::size_t key = LastWrittenAt(depth_ - 2);
    out_.insert(written_[key].offset, 1, '(');
    for (std::size_t i = key; i < written_.size(); ++i) {
      written_[i].offset += 1;
      written_[i].depth += 1;
    }
    written_.insert(written_.begin() + static_cast<std::ptrdiff_t>(key),
                    Written{written_[key].offset - 1, depth_ - 2, std::nullopt});
    written_.push_back(Written{out_.size(), depth_ + 1, std::nullopt});
    out_.push_back('u');
    depth_ -= 2;
    ForgetOrderedDictsAboveTheStack();
  }

  absl::string_view in_;
  std::string out_;
  std::vector<Written> written_;
  std::size_t depth_ = 0;
  std::vector<std::size_t> marks_;          // the depth at which each open mark sits
  std::vector<std::size_t> ordered_dicts_;  // the depths of OrderedDicts made plain, ascending
  absl::flat_hash_set<std::uint32_t> ordered_dict_memos_;  // memo keys of the OrderedDict class
  absl::flat_hash_set<std::uint32_t> dropped_;             // memo keys stored inside dropped state
};

}  // namespace

std::string LibtorchReadablePickle(absl::string_view pickle) { return Rewriter(pickle).Run(); }

}  // namespace kscope
