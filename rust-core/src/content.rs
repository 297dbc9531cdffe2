//! Equality and hashing of buffer-backed values by content.
//!
//! Two readers are equal when they hold the same logical value, whatever
//! buffer they live in and whatever widths were chosen: integers compare by
//! numeric value (signed, unsigned and indirect alike), floats by value (f32
//! widened; NaN equals NaN, -0.0 equals 0.0), strings and keys by bytes, every
//! kind of vector element-wise, maps entry-wise in key order. Hashes agree
//! with equality. Comparison is bounded (depth and an expansion budget) so
//! even hostile unverified bytes cannot make it hang; a value that cannot be
//! read compares unequal to everything.

use core::hash::{Hash, Hasher};

use crate::budget::Budget;
use crate::error::Result;
use crate::reader::Reader;
use crate::types::FlexType;

const MAX_DEPTH: usize = 1024;

#[derive(PartialEq)]
enum Class {
    Null,
    Bool,
    Int,
    Float,
    Text,
    Blob,
    Vector,
    Map,
}

fn class(t: FlexType) -> Class {
    match t {
        FlexType::Null => Class::Null,
        FlexType::Bool => Class::Bool,
        FlexType::Int | FlexType::UInt | FlexType::IndirectInt | FlexType::IndirectUInt => {
            Class::Int
        }
        FlexType::Float | FlexType::IndirectFloat => Class::Float,
        FlexType::String | FlexType::Key => Class::Text,
        FlexType::Blob => Class::Blob,
        FlexType::Map => Class::Map,
        _ => Class::Vector,
    }
}

fn int_value(r: &Reader<'_>) -> Result<i128> {
    match r.flex_type() {
        FlexType::UInt | FlexType::IndirectUInt => Ok(r.as_u64()? as i128),
        _ => Ok(r.as_i64()? as i128),
    }
}

fn eq_at(a: &Reader<'_>, b: &Reader<'_>, depth: usize, budget: &mut Budget) -> Result<bool> {
    budget.node()?;
    if depth > MAX_DEPTH {
        return Err(crate::Error::new(crate::ErrorKind::DepthLimit(MAX_DEPTH)));
    }
    let ca = class(a.flex_type());
    if ca != class(b.flex_type()) {
        return Ok(false);
    }
    Ok(match ca {
        Class::Null => true,
        Class::Bool => a.as_bool()? == b.as_bool()?,
        Class::Int => int_value(a)? == int_value(b)?,
        Class::Float => {
            let (x, y) = (a.as_f64()?, b.as_f64()?);
            x == y || (x.is_nan() && y.is_nan())
        }
        Class::Text => {
            let (x, y) = (text(a)?, text(b)?);
            budget.bytes(x.len())?;
            x == y
        }
        Class::Blob => {
            let (x, y) = (a.as_blob()?, b.as_blob()?);
            budget.bytes(x.len())?;
            x == y
        }
        Class::Vector => {
            let (x, y) = (a.as_vector()?, b.as_vector()?);
            if x.len() != y.len() {
                return Ok(false);
            }
            for i in 0..x.len() {
                if !eq_at(&x.get(i)?, &y.get(i)?, depth + 1, budget)? {
                    return Ok(false);
                }
            }
            true
        }
        Class::Map => {
            let (x, y) = (a.as_map()?, b.as_map()?);
            if x.len() != y.len() {
                return Ok(false);
            }
            for i in 0..x.len() {
                let (kx, ky) = (x.keys().get(i)?, y.keys().get(i)?);
                if !eq_at(&kx, &ky, depth + 1, budget)?
                    || !eq_at(&x.value(i)?, &y.value(i)?, depth + 1, budget)?
                {
                    return Ok(false);
                }
            }
            true
        }
    })
}

/// Raw bytes of a string or key (no UTF-8 check needed to compare or hash).
fn text<'a>(r: &Reader<'a>) -> Result<&'a [u8]> {
    match r.flex_type() {
        FlexType::Key => crate::reader::key_at(r.buffer(), r.data_offset()?),
        _ => r.as_blob(),
    }
}

fn hash_at<H: Hasher>(r: &Reader<'_>, h: &mut H, depth: usize, budget: &mut Budget) -> Result<()> {
    budget.node()?;
    if depth > MAX_DEPTH {
        return Err(crate::Error::new(crate::ErrorKind::DepthLimit(MAX_DEPTH)));
    }
    match class(r.flex_type()) {
        Class::Null => h.write_u8(0),
        Class::Bool => {
            h.write_u8(1);
            h.write_u8(r.as_bool()? as u8);
        }
        Class::Int => {
            h.write_u8(2);
            h.write_i128(int_value(r)?);
        }
        Class::Float => {
            h.write_u8(3);
            let f = r.as_f64()?;
            let bits = if f.is_nan() {
                f64::NAN.to_bits()
            } else if f == 0.0 {
                0
            } else {
                f.to_bits()
            };
            h.write_u64(bits);
        }
        Class::Text => {
            h.write_u8(4);
            let t = text(r)?;
            budget.bytes(t.len())?;
            h.write(t);
            h.write_u8(0xff);
        }
        Class::Blob => {
            h.write_u8(5);
            let t = r.as_blob()?;
            budget.bytes(t.len())?;
            h.write(t);
            h.write_u8(0xff);
        }
        Class::Vector => {
            let v = r.as_vector()?;
            h.write_u8(6);
            h.write_usize(v.len());
            for e in v.iter() {
                hash_at(&e?, h, depth + 1, budget)?;
            }
        }
        Class::Map => {
            let m = r.as_map()?;
            h.write_u8(7);
            h.write_usize(m.len());
            for i in 0..m.len() {
                hash_at(&m.keys().get(i)?, h, depth + 1, budget)?;
                hash_at(&m.value(i)?, h, depth + 1, budget)?;
            }
        }
    }
    Ok(())
}

impl PartialEq for Reader<'_> {
    fn eq(&self, other: &Self) -> bool {
        let mut budget = Budget::for_input(self.buffer().len().max(other.buffer().len()));
        eq_at(self, other, 0, &mut budget).unwrap_or(false)
    }
}

impl Eq for Reader<'_> {}

impl Hash for Reader<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let mut budget = Budget::for_input(self.buffer().len());
        if hash_at(self, state, 0, &mut budget).is_err() {
            // Unreadable values hash alike; they also compare unequal, which Hash allows.
            state.write_u8(0xee);
        }
    }
}
