//! Random valid op sequences for the C++ differential test.
//!
//! Every sequence is one the C++ builder accepts (its assertions stay quiet)
//! and ours must too: typed vectors hold one element type, fixed vectors 2..4
//! numbers, map keys are unique and free of NUL, bulk vectors fit their
//! length in their element width, and reuse only puts a value where its type
//! is allowed. Values lean on boundaries (widths, NaN, -0.0, subnormals),
//! repeated strings (for the sharing flags) and occasional large payloads
//! that push offsets past 1- and 2-byte widths.

use std::collections::BTreeSet;

use crate::op::{Op, Scalars};

/// A xorshift64* generator: small, seedable and the same everywhere.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator for `seed` (any value; zero is remapped).
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed ^ 0x9e37_79b9_7f4a_7c15 | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One element of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// One random case: sharing flags and ops.
#[derive(Clone, Debug)]
pub struct RandomCase {
    /// C++ `BuilderFlag`, 0..7.
    pub flags: u8,
    /// The ops (valid for both builders).
    pub ops: Vec<Op>,
}

/// What a marked value is, so reuse only puts it where its type is allowed.
#[derive(Clone, Debug, PartialEq)]
enum Mark {
    Int,
    UInt,
    Float,
    Bool,
    Key(String),
    Other,
}

/// Element kinds of typed vectors.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    Int,
    UInt,
    Float,
    Bool,
    Key,
}

const INTS: [i64; 20] = [
    0,
    1,
    -1,
    127,
    128,
    -128,
    -129,
    255,
    256,
    32767,
    32768,
    -32768,
    -32769,
    65535,
    65536,
    2147483647,
    -2147483648,
    4294967295,
    i64::MAX,
    i64::MIN,
];

const F32S: [u32; 12] = [
    0,
    0x8000_0000,
    0x3f80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7fc0_0123,
    0x7f80_0001, // signalling NaN
    0x0000_0001,
    0x007f_ffff,
    0x7f7f_ffff,
    0x3dcc_cccd,
];

const F64S: [u64; 12] = [
    0,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff4_0000_0000_0001, // signalling NaN
    0x0000_0000_0000_0001,
    0x3fb9_9999_9999_999a,
    0x36a0_0000_0000_0000,
    0x47ef_ffff_e000_0000,
    0x7fef_ffff_ffff_ffff,
];

const CHARS: [&str; 12] = ["a", "b", "z", "A", " ", "é", "ß", "€", "日", "😱", "𝄞", "~"];

struct Gen<'r> {
    rng: &'r mut XorShift,
    ops: Vec<Op>,
    marks: Vec<Mark>,
    /// Values still allowed in this case.
    budget: usize,
    /// Whether this case may still write one large payload (over 64 KiB).
    big_allowed: bool,
    /// Strings seen in this case, reused so the sharing flags have work.
    pool: Vec<String>,
}

/// A random valid case.
pub fn random_case(rng: &mut XorShift) -> RandomCase {
    let flags = rng.below(8) as u8;
    let budget = match rng.below(10) {
        0..=5 => 1 + rng.below(20),
        6..=8 => 20 + rng.below(200),
        _ => 200 + rng.below(1000),
    };
    // About one case in 25 may hold a payload over 64 KiB: enough to cover
    // 4-byte sizes and offsets without making every case slow.
    let big_allowed = rng.chance(4);
    let mut g = Gen {
        rng,
        ops: Vec::new(),
        marks: Vec::new(),
        budget,
        big_allowed,
        pool: Vec::new(),
    };
    g.value(0);
    RandomCase { flags, ops: g.ops }
}

impl Gen<'_> {
    fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    fn spend(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    fn maybe_mark(&mut self, mark: Mark) {
        if self.rng.chance(8) {
            self.push(Op::Mark);
            self.marks.push(mark);
        }
    }

    fn maybe_force(&mut self) {
        if self.rng.chance(4) {
            let w = self.rng.pick(&[1u8, 1, 2, 4, 8]);
            self.push(Op::ForceMinWidth(w));
        }
    }

    fn int(&mut self) -> i64 {
        match self.rng.below(5) {
            0 | 1 => self.rng.pick(&INTS),
            2 => self.rng.below(600) as i64 - 300,
            3 => {
                let bits = self.rng.pick(&[7u32, 8, 15, 16, 31, 32, 63]);
                let v = (self.rng.next_u64() >> (64 - bits)) as i64;
                if self.rng.chance(50) {
                    -v - 1
                } else {
                    v
                }
            }
            _ => self.rng.next_u64() as i64,
        }
    }

    fn uint(&mut self) -> u64 {
        match self.rng.below(4) {
            0 => self.rng.pick(&INTS).unsigned_abs(),
            1 => self.rng.below(600) as u64,
            2 => {
                let bits = self.rng.pick(&[8u32, 9, 16, 17, 32, 33, 64]);
                self.rng.next_u64() >> (64 - bits)
            }
            _ => u64::MAX - self.rng.below(3) as u64,
        }
    }

    fn f32_bits(&mut self) -> u32 {
        match self.rng.below(3) {
            0 => self.rng.pick(&F32S),
            1 => (self.rng.below(2000) as f32 / 8.0 - 100.0).to_bits(),
            _ => self.rng.next_u64() as u32,
        }
    }

    fn f64_bits(&mut self) -> u64 {
        match self.rng.below(4) {
            0 => self.rng.pick(&F64S),
            1 => f64::from(f32::from_bits(self.f32_bits())).to_bits(),
            2 => (self.rng.below(2000) as f64 / 10.0 - 100.0).to_bits(),
            _ => self.rng.next_u64(),
        }
    }

    fn length(&mut self) -> usize {
        match self.rng.below(20) {
            0..=14 => self.rng.below(8),
            15..=18 => 200 + self.rng.below(120),
            _ if self.big_allowed => {
                self.big_allowed = false;
                65_536 + self.rng.below(64)
            }
            _ => self.rng.below(40),
        }
    }

    fn text(&mut self, allow_nul: bool) -> String {
        if !self.pool.is_empty() && self.rng.chance(40) {
            let s = self.pool[self.rng.below(self.pool.len())].clone();
            if allow_nul || !s.contains('\0') {
                return s;
            }
        }
        let len = self.length();
        let mut s = String::new();
        if len > 1000 {
            // Large payloads stay cheap to generate: one repeated character.
            s = self.rng.pick(&CHARS).repeat(len);
        } else {
            for _ in 0..len {
                if allow_nul && self.rng.chance(3) {
                    s.push('\0');
                } else {
                    s.push_str(self.rng.pick(&CHARS));
                }
            }
        }
        if self.pool.len() < 64 && s.len() <= 1000 {
            self.pool.push(s.clone());
        }
        s
    }

    fn blob(&mut self) -> Vec<u8> {
        let len = self.length();
        (0..len).map(|_| self.rng.next_u64() as u8).collect()
    }

    /// Pushes exactly one value (the budget only limits nesting and counts).
    fn value(&mut self, depth: usize) {
        self.maybe_force();
        let has_budget = self.spend();
        let choice = if !has_budget || depth >= 6 {
            self.rng.below(12)
        } else {
            self.rng.below(22)
        };
        match choice {
            0 => {
                self.push(Op::Null);
                self.maybe_mark(Mark::Other);
            }
            1 => {
                let b = self.rng.chance(50);
                self.push(Op::Bool(b));
                self.maybe_mark(Mark::Bool);
            }
            2 => {
                let i = self.int();
                self.push(Op::Int(i));
                self.maybe_mark(Mark::Int);
            }
            3 => {
                let u = self.uint();
                self.push(Op::UInt(u));
                self.maybe_mark(Mark::UInt);
            }
            4 => {
                let f = self.f32_bits();
                self.push(Op::Float(f));
                self.maybe_mark(Mark::Float);
            }
            5 => {
                let d = self.f64_bits();
                self.push(Op::Double(d));
                self.maybe_mark(Mark::Float);
            }
            6 => {
                let k = self.text(false);
                self.push(Op::Key(k.clone()));
                self.maybe_mark(Mark::Key(k));
            }
            7 => {
                let s = self.text(true);
                self.push(Op::String(s));
                self.maybe_mark(Mark::Other);
            }
            8 => {
                let b = self.blob();
                self.push(Op::Blob(b));
                self.maybe_mark(Mark::Other);
            }
            9 => {
                let op = match self.rng.below(4) {
                    0 => Op::IndirectInt(self.int()),
                    1 => Op::IndirectUInt(self.uint()),
                    2 => Op::IndirectFloat(self.f32_bits()),
                    _ => Op::IndirectDouble(self.f64_bits()),
                };
                self.push(op);
                self.maybe_mark(Mark::Other);
            }
            10 | 11 => {
                if self.marks.is_empty() {
                    self.push(Op::Null);
                } else {
                    let slot = self.rng.below(self.marks.len());
                    self.push(Op::Reuse(slot));
                }
            }
            12..=14 => self.vector(depth),
            15 | 16 => self.typed(),
            17 => self.fixed(),
            18 => self.bulk(),
            _ => self.map(depth),
        }
    }

    fn count(&mut self) -> usize {
        match self.rng.below(12) {
            0..=9 => self.rng.below(6),
            10 => 100 + self.rng.below(200),
            _ => 300 + self.rng.below(700),
        }
        .min(self.budget + 1)
    }

    fn vector(&mut self, depth: usize) {
        self.push(Op::StartVector);
        for _ in 0..self.count() {
            self.value(depth + 1);
        }
        self.maybe_force();
        self.push(Op::EndVector {
            typed: false,
            fixed: false,
        });
        self.maybe_mark(Mark::Other);
    }

    /// One element of a typed or fixed vector of `elem`, possibly a reused mark.
    fn element(&mut self, elem: Elem) {
        let wanted: Vec<usize> = self
            .marks
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                matches!(
                    (elem, m),
                    (Elem::Int, Mark::Int)
                        | (Elem::UInt, Mark::UInt)
                        | (Elem::Float, Mark::Float)
                        | (Elem::Bool, Mark::Bool)
                        | (Elem::Key, Mark::Key(_))
                )
            })
            .map(|(i, _)| i)
            .collect();
        if !wanted.is_empty() && self.rng.chance(10) {
            let slot = self.rng.pick(&wanted);
            self.push(Op::Reuse(slot));
            return;
        }
        let op = match elem {
            Elem::Int => Op::Int(self.int()),
            Elem::UInt => Op::UInt(self.uint()),
            Elem::Float if self.rng.chance(50) => Op::Float(self.f32_bits()),
            Elem::Float => Op::Double(self.f64_bits()),
            Elem::Bool => Op::Bool(self.rng.chance(50)),
            Elem::Key => Op::Key(self.text(false)),
        };
        self.push(op);
    }

    fn typed(&mut self) {
        let elem = self
            .rng
            .pick(&[Elem::Int, Elem::UInt, Elem::Float, Elem::Bool, Elem::Key]);
        let n = self.count();
        self.push(Op::StartVector);
        for _ in 0..n {
            self.element(elem);
        }
        self.maybe_force();
        self.push(Op::EndVector {
            typed: true,
            fixed: false,
        });
        self.maybe_mark(Mark::Other);
    }

    fn fixed(&mut self) {
        let elem = self.rng.pick(&[Elem::Int, Elem::UInt, Elem::Float]);
        let n = 2 + self.rng.below(3);
        self.push(Op::StartVector);
        for _ in 0..n {
            self.element(elem);
        }
        self.maybe_force();
        self.push(Op::EndVector {
            typed: true,
            fixed: true,
        });
        self.maybe_mark(Mark::Other);
    }

    fn scalars(&mut self, n: usize) -> Scalars {
        let ints = |g: &mut Self| (0..n).map(|_| g.int()).collect::<Vec<i64>>();
        match self.rng.below(11) {
            0 => Scalars::I8(ints(self).into_iter().map(|v| v as i8).collect()),
            1 => Scalars::I16(ints(self).into_iter().map(|v| v as i16).collect()),
            2 => Scalars::I32(ints(self).into_iter().map(|v| v as i32).collect()),
            3 => Scalars::I64(ints(self)),
            4 => Scalars::U8((0..n).map(|_| self.uint() as u8).collect()),
            5 => Scalars::U16((0..n).map(|_| self.uint() as u16).collect()),
            6 => Scalars::U32((0..n).map(|_| self.uint() as u32).collect()),
            7 => Scalars::U64((0..n).map(|_| self.uint()).collect()),
            8 => Scalars::F32((0..n).map(|_| self.f32_bits()).collect()),
            9 => Scalars::F64((0..n).map(|_| self.f64_bits()).collect()),
            _ => Scalars::Bool((0..n).map(|_| self.rng.chance(50)).collect()),
        }
    }

    fn bulk(&mut self) {
        match self.rng.below(3) {
            0 => {
                // Vector(const T *): the length must fit the element width.
                let mut n = self.count();
                let s = loop {
                    let s = self.scalars(n);
                    if s.width() > 1 || n <= 255 {
                        break s;
                    }
                    n = self.rng.below(256);
                };
                self.push(Op::ScalarVector(s));
            }
            1 => {
                let n = 2 + self.rng.below(3);
                let s = loop {
                    let s = self.scalars(n);
                    if s.kind() != "bool" {
                        break s;
                    }
                };
                self.push(Op::FixedVector(s));
            }
            _ => {
                // typed_vector: rendered for C++ as pushes, empty ones and
                // signalling f32 NaNs included (pushing quiets them; so must the bulk path).
                let n = self.count();
                let s = self.scalars(n);
                self.push(Op::TypedVector(s));
            }
        }
        self.maybe_mark(Mark::Other);
    }

    fn map(&mut self, depth: usize) {
        let n = self.count();
        let mut used = BTreeSet::new();
        self.push(Op::StartMap);
        for _ in 0..n {
            let reusable: Vec<usize> = self
                .marks
                .iter()
                .enumerate()
                .filter(|(_, m)| matches!(m, Mark::Key(k) if !used.contains(k)))
                .map(|(i, _)| i)
                .collect();
            if !reusable.is_empty() && self.rng.chance(15) {
                let slot = self.rng.pick(&reusable);
                if let Mark::Key(k) = &self.marks[slot] {
                    used.insert(k.clone());
                }
                self.push(Op::Reuse(slot));
            } else {
                let mut k = self.text(false);
                while used.contains(&k) {
                    k.push(self.rng.pick(&['x', 'é', '1']));
                }
                used.insert(k.clone());
                self.push(Op::Key(k.clone()));
                self.maybe_mark(Mark::Key(k));
            }
            self.value(depth + 1);
        }
        self.maybe_force();
        self.push(Op::EndMap);
        self.maybe_mark(Mark::Other);
    }
}

/// True for an f32 signalling NaN (quiet bit clear, payload non-zero).
pub fn is_signalling_f32(bits: u32) -> bool {
    bits & 0x7f80_0000 == 0x7f80_0000 && bits & 0x007f_ffff != 0 && bits & 0x0040_0000 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift_is_deterministic_and_spread() {
        let mut a = XorShift::new(42);
        let mut b = XorShift::new(42);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs[0], xs[1]);
        let mut counts = [0usize; 4];
        for _ in 0..4000 {
            counts[a.below(4)] += 1;
        }
        assert!(counts.iter().all(|&c| c > 800), "{counts:?}");
    }

    #[test]
    fn random_cases_build_with_our_builder() {
        let mut rng = XorShift::new(7);
        for i in 0..300 {
            let case = random_case(&mut rng);
            if let Err(e) = crate::op::build(case.flags, &case.ops) {
                panic!("case {i} fails: {e}\n{:?}", case.ops);
            }
        }
    }

    #[test]
    fn signalling_nan_detection() {
        assert!(is_signalling_f32(0x7f80_0001));
        assert!(is_signalling_f32(0xff80_0001));
        assert!(!is_signalling_f32(0x7fc0_0000));
        assert!(!is_signalling_f32(0x7f80_0000));
    }
}
