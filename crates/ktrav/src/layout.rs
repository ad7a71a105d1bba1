//! Storage order: where element `(row, col)` of a matrix lives in its flat
//! buffer. Both orders share one idea, an offset formula with two strides,
//! so row-major and column-major are one type with a different field, not
//! two copy-pasted structs.

use crate::geometry::Shape;
use std::fmt;

// ANCHOR: storage_order
/// The two ways of laying a `rows x cols` matrix out in one flat buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StorageOrder {
    /// Each row is contiguous: the column index moves fastest.
    RowMajor,
    /// Each column is contiguous: the row index moves fastest.
    ColMajor,
}

impl StorageOrder {
    /// Distance in elements between `(r, c)` and `(r + 1, c)`, and between
    /// `(r, c)` and `(r, c + 1)`.
    pub const fn strides(self, shape: Shape) -> (u64, u64) {
        match self {
            StorageOrder::RowMajor => (shape.cols, 1),
            StorageOrder::ColMajor => (1, shape.rows),
        }
    }

    /// The flat offset of `(row, col)`: `row * row_stride + col * col_stride`.
    pub const fn offset(self, shape: Shape, row: u64, col: u64) -> u64 {
        let (row_stride, col_stride) = self.strides(shape);
        row * row_stride + col * col_stride
    }
}
// ANCHOR_END: storage_order

impl fmt::Display for StorageOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StorageOrder::RowMajor => "row-major",
            StorageOrder::ColMajor => "col-major",
        })
    }
}

// ANCHOR: matrix
/// A dense matrix: a flat buffer plus the formula that addresses it.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix<T> {
    shape: Shape,
    order: StorageOrder,
    data: Vec<T>,
}

impl<T: Copy> Matrix<T> {
    /// A matrix whose element `(r, c)` is `value(r, c)`, stored in `order`.
    pub fn from_fn(shape: Shape, order: StorageOrder, mut value: impl FnMut(u64, u64) -> T) -> Self
    where
        T: Default,
    {
        let mut data = vec![T::default(); shape.elements() as usize];
        for r in 0..shape.rows {
            for c in 0..shape.cols {
                data[order.offset(shape, r, c) as usize] = value(r, c);
            }
        }
        Matrix { shape, order, data }
    }

    /// Wraps an existing buffer, interpreting it in `order`.
    ///
    /// # Panics
    /// Panics if `data.len() != rows * cols`.
    pub fn from_vec(shape: Shape, order: StorageOrder, data: Vec<T>) -> Self {
        assert_eq!(data.len() as u64, shape.elements(), "buffer length does not match the shape");
        Matrix { shape, order, data }
    }

    pub fn get(&self, row: u64, col: u64) -> T {
        self.data[self.order.offset(self.shape, row, col) as usize]
    }

    pub fn set(&mut self, row: u64, col: u64, value: T) {
        let at = self.order.offset(self.shape, row, col) as usize;
        self.data[at] = value;
    }
}
// ANCHOR_END: matrix

impl<T> Matrix<T> {
    pub fn shape(&self) -> Shape {
        self.shape
    }
    pub fn rows(&self) -> u64 {
        self.shape.rows
    }
    pub fn cols(&self) -> u64 {
        self.shape.cols
    }
    pub fn order(&self) -> StorageOrder {
        self.order
    }
    /// The flat buffer, in storage order.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_the_formulas() {
        let s = Shape::new(2, 3);
        assert_eq!(StorageOrder::RowMajor.offset(s, 1, 2), 5);
        assert_eq!(StorageOrder::ColMajor.offset(s, 1, 2), 5);
        assert_eq!(StorageOrder::RowMajor.offset(s, 1, 0), 3);
        assert_eq!(StorageOrder::ColMajor.offset(s, 1, 0), 1);
        let m = Matrix::from_fn(s, StorageOrder::ColMajor, |r, c| 10 * r + c);
        assert_eq!(m.as_slice(), &[0, 10, 1, 11, 2, 12]);
        assert_eq!(m.get(1, 2), 12);
    }
}
