//! Topic patterns for `subscribe(Pattern)`: Java's `Pattern.matcher(topic).matches()`
//! (the whole name must match).
//!
//! A small regex engine of its own, for the page's size: a general regex
//! crate was ~7 KB of the gzipped page for patterns like `orders-.*`. It
//! covers what topic patterns use: literals, `.`, classes (`[a-z0-9._-]`,
//! `[^x]`, `\d \w \s` and their negations), groups `( )` / `(?: )`,
//! alternation `|`, the quantifiers `* + ? {n} {n,} {n,m}` (greedy or lazy:
//! the same for a whole-name match), `^` at the start, `$` at the end, and
//! `(?i)` at the start. Anything else is refused with a message naming it.
//! The pattern is compiled to a Thompson NFA and run over the name one
//! character at a time (no backtracking, so no pattern can take
//! exponential time). A test checks it against the `regex-lite` crate.

/// A set of characters: ranges, possibly negated.
#[derive(Clone, Debug, PartialEq)]
struct Class {
    ranges: Vec<(char, char)>,
    negated: bool,
}

impl Class {
    fn one(c: char) -> Class {
        Class {
            ranges: vec![(c, c)],
            negated: false,
        }
    }
    fn matches(&self, c: char, fold: bool) -> bool {
        let hit = |c: char| self.ranges.iter().any(|&(a, b)| a <= c && c <= b);
        let found =
            hit(c) || (fold && (hit(c.to_ascii_lowercase()) || hit(c.to_ascii_uppercase())));
        found != self.negated
    }
}

/// One instruction of the compiled pattern.
#[derive(Clone, Debug, PartialEq)]
enum Inst {
    /// Consume one character in the class, go on to the next instruction.
    Char(Class),
    /// Go on at both targets.
    Split(usize, usize),
    Jump(usize),
    Match,
}

/// Parsed pattern.
#[derive(Clone, Debug)]
enum Node {
    Class(Class),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
}

/// Most repetitions a `{n,m}` may ask for (the program grows with it).
const MAX_REPEAT: u32 = 1000;

struct Parser<'a> {
    chars: Vec<char>,
    at: usize,
    src: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn err(&self, what: &str) -> String {
        format!("`{}` is not a valid pattern: {what}", self.src)
    }

    fn alternation(&mut self) -> Result<Node, String> {
        let mut alts = vec![self.concat()?];
        while self.eat('|') {
            alts.push(self.concat()?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().expect("one")
        } else {
            Node::Alt(alts)
        })
    }

    fn concat(&mut self) -> Result<Node, String> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            items.push(self.quantified(atom)?);
        }
        Ok(Node::Concat(items))
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        let s: String = self.chars[start..self.at].iter().collect();
        s.parse().ok()
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.at += 1;
                let min = self
                    .number()
                    .ok_or_else(|| self.err("`{` must start a repetition like {2,5}"))?;
                let max = if self.eat(',') {
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(self.number().ok_or_else(|| self.err("bad repetition"))?)
                    }
                } else {
                    Some(min)
                };
                if self.peek() != Some('}') {
                    return Err(self.err("unclosed repetition `{`"));
                }
                if max.is_some_and(|m| m < min) {
                    return Err(self.err("a repetition's maximum is below its minimum"));
                }
                if min.max(max.unwrap_or(0)) > MAX_REPEAT {
                    return Err(self.err("repetitions above 1000 are not supported"));
                }
                (min, max)
            }
            _ => return Ok(atom),
        };
        self.at += 1;
        if self.eat('+') {
            return Err(self.err("possessive quantifiers (`*+`, `++`) are not supported"));
        }
        self.eat('?'); // lazy: the same for a whole-name match
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
            return Err(self.err("a quantifier must follow something to repeat"));
        }
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    fn atom(&mut self) -> Result<Node, String> {
        let c = self.peek().expect("caller checked");
        self.at += 1;
        match c {
            '(' => {
                if self.eat('?') && !self.eat(':') {
                    return Err(self.err("only the group forms `( )` and `(?: )` are supported"));
                }
                let inner = self.alternation()?;
                if !self.eat(')') {
                    return Err(self.err("unclosed group `(`"));
                }
                Ok(inner)
            }
            '[' => self.class().map(Node::Class),
            '.' => Ok(Node::Class(Class {
                ranges: vec![('\n', '\n')],
                negated: true,
            })),
            '\\' => self.escape().map(Node::Class),
            '*' | '+' | '?' | '{' => Err(self.err("a quantifier must follow something to repeat")),
            '^' | '$' => Err(self.err("`^` and `$` are only supported at the start and the end")),
            c => Ok(Node::Class(Class::one(c))),
        }
    }

    /// After a `\`: a class shorthand or an escaped character.
    fn escape(&mut self) -> Result<Class, String> {
        let c = self
            .peek()
            .ok_or_else(|| self.err("the pattern ends with `\\`"))?;
        self.at += 1;
        let set = |ranges: Vec<(char, char)>, negated| Class { ranges, negated };
        let digit = vec![('0', '9')];
        let word = vec![('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
        let space = vec![('\t', '\r'), (' ', ' ')];
        Ok(match c {
            'd' => set(digit, false),
            'D' => set(digit, true),
            'w' => set(word, false),
            'W' => set(word, true),
            's' => set(space, false),
            'S' => set(space, true),
            't' => Class::one('\t'),
            'n' => Class::one('\n'),
            'r' => Class::one('\r'),
            c if !c.is_ascii_alphanumeric() => Class::one(c),
            c => return Err(self.err(&format!("the escape `\\{c}` is not supported"))),
        })
    }

    /// After a `[`: up to and including the `]`.
    fn class(&mut self) -> Result<Class, String> {
        let negated = self.eat('^');
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let c = self
                .peek()
                .ok_or_else(|| self.err("unclosed character class `[`"))?;
            if c == ']' && !first {
                self.at += 1;
                break;
            }
            first = false;
            self.at += 1;
            let lo = if c == '\\' {
                let e = self.escape()?;
                if e.negated || e.ranges.len() != 1 || e.ranges[0].0 != e.ranges[0].1 {
                    if e.negated {
                        return Err(self.err("negated shorthands (`\\D`, `\\W`, `\\S`) inside `[ ]` are not supported"));
                    }
                    ranges.extend(e.ranges);
                    continue;
                }
                e.ranges[0].0
            } else if c == '[' {
                return Err(self.err("nested classes `[[ ]]` are not supported"));
            } else {
                c
            };
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|&n| n != ']') {
                self.at += 1;
                let h = self.peek().expect("checked");
                self.at += 1;
                let hi = if h == '\\' {
                    let e = self.escape()?;
                    if e.negated || e.ranges.len() != 1 || e.ranges[0].0 != e.ranges[0].1 {
                        return Err(self.err("a class range must end with a single character"));
                    }
                    e.ranges[0].0
                } else {
                    h
                };
                if hi < lo {
                    return Err(self.err(&format!("the class range `{lo}-{hi}` is backwards")));
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        Ok(Class { ranges, negated })
    }
}

fn compile(node: &Node, prog: &mut Vec<Inst>) {
    match node {
        Node::Class(c) => prog.push(Inst::Char(c.clone())),
        Node::Concat(items) => items.iter().for_each(|n| compile(n, prog)),
        Node::Alt(alts) => {
            // split L1, next; L1: a; jump end; next: split L2, ... ; last
            let mut jumps = Vec::new();
            for (i, a) in alts.iter().enumerate() {
                if i + 1 < alts.len() {
                    let split = prog.len();
                    prog.push(Inst::Split(split + 1, 0));
                    compile(a, prog);
                    jumps.push(prog.len());
                    prog.push(Inst::Jump(0));
                    let next = prog.len();
                    prog[split] = Inst::Split(split + 1, next);
                } else {
                    compile(a, prog);
                }
            }
            let end = prog.len();
            for j in jumps {
                prog[j] = Inst::Jump(end);
            }
        }
        Node::Repeat { node, min, max } => {
            for _ in 0..*min {
                compile(node, prog);
            }
            match max {
                None => {
                    // L: split body, end; body; jump L
                    let l = prog.len();
                    prog.push(Inst::Split(l + 1, 0));
                    compile(node, prog);
                    prog.push(Inst::Jump(l));
                    let end = prog.len();
                    prog[l] = Inst::Split(l + 1, end);
                }
                Some(max) => {
                    let mut splits = Vec::new();
                    for _ in *min..*max {
                        splits.push(prog.len());
                        prog.push(Inst::Split(prog.len() + 1, 0));
                        compile(node, prog);
                    }
                    let end = prog.len();
                    for s in splits {
                        prog[s] = Inst::Split(s + 1, end);
                    }
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct Regex {
    source: String,
    prog: Vec<Inst>,
    fold: bool,
}

impl Regex {
    pub fn new(p: &str) -> Result<Regex, String> {
        let mut body = p;
        let fold = if let Some(rest) = body.strip_prefix("(?i)") {
            body = rest;
            true
        } else {
            false
        };
        // Anchors at the ends change nothing for a whole-name match.
        body = body.strip_prefix('^').unwrap_or(body);
        if body.ends_with('$') && !body.ends_with("\\$") {
            body = &body[..body.len() - 1];
        }
        let mut parser = Parser {
            chars: body.chars().collect(),
            at: 0,
            src: p,
        };
        let node = parser.alternation()?;
        if parser.at < parser.chars.len() {
            return Err(parser.err("unopened group `)`"));
        }
        let mut prog = Vec::new();
        compile(&node, &mut prog);
        prog.push(Inst::Match);
        if prog.len() > 20_000 {
            return Err(parser.err("the pattern is too large"));
        }
        Ok(Regex {
            source: p.to_string(),
            prog,
            fold,
        })
    }

    /// Adds `pc` and whatever it reaches without consuming a character.
    fn add(&self, list: &mut Vec<usize>, seen: &mut [bool], pc: usize) {
        if seen[pc] {
            return;
        }
        seen[pc] = true;
        match &self.prog[pc] {
            Inst::Split(a, b) => {
                self.add(list, seen, *a);
                self.add(list, seen, *b);
            }
            Inst::Jump(a) => self.add(list, seen, *a),
            _ => list.push(pc),
        }
    }

    /// Whole-name match, like Java's `matches()`.
    pub fn matches(&self, topic: &str) -> bool {
        let n = self.prog.len();
        let mut seen = vec![false; n];
        let mut now = Vec::new();
        self.add(&mut now, &mut seen, 0);
        for c in topic.chars() {
            let mut next = Vec::new();
            seen.iter_mut().for_each(|s| *s = false);
            for &pc in &now {
                if let Inst::Char(class) = &self.prog[pc] {
                    if class.matches(c, self.fold) {
                        self.add(&mut next, &mut seen, pc + 1);
                    }
                }
            }
            if next.is_empty() {
                return false;
            }
            now = next;
        }
        now.iter().any(|&pc| self.prog[pc] == Inst::Match)
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }
}

impl PartialEq for Regex {
    fn eq(&self, o: &Regex) -> bool {
        self.source == o.source
    }
}

#[cfg(test)]
mod tests {
    use super::Regex;

    #[test]
    fn matches_whole_names_only() {
        let r = Regex::new("orders-.*").unwrap();
        assert!(r.matches("orders-eu"));
        assert!(!r.matches("old-orders-eu"));
        assert!(Regex::new("(").is_err());
    }

    /// Every pattern against every name, compared with the `regex-lite`
    /// crate (a full regex engine) asked for a whole match.
    #[test]
    fn agrees_with_a_full_regex_engine() {
        let patterns = [
            "orders-.*",
            "orders\\..*",
            "(orders|payments)-(eu|us)",
            "metrics-\\d+",
            "metrics-\\d{2,3}",
            "metrics-\\d{2}",
            "metrics-\\d{2,}",
            "[a-c]+-[^x]?",
            "[a-z0-9._-]+",
            "[-a]+",
            "[\\w.]+-\\W",
            "a|b|",
            "(a*)*b",
            "(?:ab)+c?",
            "x?y??z*?",
            "^orders-.*$",
            "(?i)Orders-[A-Z]+",
            "t\\s\\S",
            "",
            ".",
            "a.c",
            "__consumer_offsets",
            "[^_].*",
            "logs-(app|web)-\\d{4}-\\d{2}",
        ];
        let names = [
            "",
            "a",
            "b",
            "ab",
            "abc",
            "ac",
            "abab",
            "ababc",
            "aab",
            "aaaab",
            "orders-eu",
            "orders-",
            "orders.eu",
            "ordersXeu",
            "payments-us",
            "payments-uk",
            "orders-us",
            "metrics-1",
            "metrics-12",
            "metrics-123",
            "metrics-1234",
            "metrics-",
            "abc-d",
            "abc-x",
            "c-",
            "a-b",
            "-a-",
            "my_topic.v2-x",
            "my_topic-!",
            "xz",
            "yz",
            "xyz",
            "z",
            "ORDERS-EU",
            "Orders-eu",
            "orders-EU",
            "t a",
            "t  ",
            "x",
            "__consumer_offsets",
            "_x",
            "logs-app-2026-12",
            "logs-db-2026-12",
            "logs-web-26-1",
        ];
        let mut hits = 0;
        for p in patterns {
            let ours = Regex::new(p).unwrap_or_else(|e| panic!("{p}: {e}"));
            let theirs = regex_lite::Regex::new(&format!("^(?:{})$", p.trim_start_matches("(?i)")))
                .map(|r| (r, p.starts_with("(?i)")))
                .unwrap();
            for n in names {
                let expected = if theirs.1 {
                    regex_lite::Regex::new(&format!("(?i)^(?:{})$", &p[4..]))
                        .unwrap()
                        .is_match(n)
                } else {
                    theirs.0.is_match(n)
                };
                assert_eq!(ours.matches(n), expected, "pattern {p:?} on {n:?}");
                hits += usize::from(expected);
            }
        }
        // Both outcomes are exercised, many times.
        assert!(
            (60..patterns.len() * names.len() - 60).contains(&hits),
            "{hits}"
        );
    }

    #[test]
    fn refuses_what_it_does_not_support_by_name() {
        for (p, why) in [
            ("(", "unclosed group"),
            (")", "unopened group"),
            ("[a-", "unclosed character class"),
            ("[z-a]", "backwards"),
            ("*a", "quantifier must follow"),
            ("a**", "quantifier must follow"),
            ("a++", "possessive"),
            ("a{3,1}", "below its minimum"),
            ("a{5000}", "above 1000"),
            ("(?=a)", "group forms"),
            ("a^b", "start and the end"),
            ("\\p{L}", "escape `\\p`"),
            ("a\\", "ends with"),
        ] {
            let e = Regex::new(p).unwrap_err();
            assert!(e.contains(why), "{p}: {e}");
            assert!(e.contains(&format!("`{p}`")), "{e}");
        }
    }

    #[test]
    fn a_pathological_pattern_takes_linear_time() {
        let r = Regex::new("(a*)*(a*)*(a*)*b").unwrap();
        assert!(!r.matches(&"a".repeat(249)));
    }
}
