//! The rows of one flat buffer as a rayon iterator: `par_rows` and `par_optional_rows`, on
//! `RowChunks`, a hand-written rayon producer that splits a buffer into rows of a fixed
//! length inside rayon's tasks.

use rayon::iter::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer, bridge};
use rayon::prelude::*;

/// `buffer` (of length `n × len`, checked by the caller) as `n` rows of `len` for rayon
/// (`n` empty rows when `len` is 0).
pub(super) fn par_rows<T: Send>(
    buffer: &mut [T],
    n: usize,
    len: usize,
) -> impl IndexedParallelIterator<Item = &mut [T]> {
    RowChunks {
        buffer: Some(buffer),
        n,
        row_len: len,
    }
    .map(Option::unwrap_or_default)
}

/// `par_rows` of an optional buffer: `n` rows of `Some(row)`, or `n` of `None`.
pub(super) fn par_optional_rows<T: Send>(
    buffer: Option<&mut [T]>,
    n: usize,
    len: usize,
) -> impl IndexedParallelIterator<Item = Option<&mut [T]>> {
    RowChunks {
        buffer,
        n,
        row_len: len,
    }
}

/// `n` rows of `len` items of a buffer (`len` may be 0), or `n` `None`s without a buffer: one
/// parallel iterator type for every case. (Choosing between rayon iterators with `Either` for
/// the eleven buffers a step zips made rayon's machinery compile once per combination, over
/// a thousand times: most of this crate's compile time and binary size.)
struct RowChunks<'a, T> {
    buffer: Option<&'a mut [T]>,
    n: usize,
    row_len: usize,
}

impl<'a, T: Send> ParallelIterator for RowChunks<'a, T> {
    type Item = Option<&'a mut [T]>;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.n)
    }
}

impl<T: Send> IndexedParallelIterator for RowChunks<'_, T> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.n
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(self)
    }
}

impl<'a, T: Send> Producer for RowChunks<'a, T> {
    type Item = Option<&'a mut [T]>;
    type IntoIter = RowIter<'a, T>;

    fn into_iter(self) -> RowIter<'a, T> {
        RowIter {
            buffer: self.buffer,
            n: self.n,
            row_len: self.row_len,
        }
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = match self.buffer {
            Some(buffer) => {
                let (left, right) = buffer.split_at_mut(index * self.row_len);
                (Some(left), Some(right))
            }
            None => (None, None),
        };
        let row_len = self.row_len;
        (
            RowChunks {
                buffer: left,
                n: index,
                row_len,
            },
            RowChunks {
                buffer: right,
                n: self.n - index,
                row_len,
            },
        )
    }
}

/// The rows of one `RowChunks` piece, in order.
struct RowIter<'a, T> {
    buffer: Option<&'a mut [T]>,
    n: usize,
    row_len: usize,
}

impl<'a, T> Iterator for RowIter<'a, T> {
    type Item = Option<&'a mut [T]>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.n == 0 {
            return None;
        }
        self.n -= 1;
        Some(self.buffer.take().map(|buffer| {
            let (row, rest) = buffer.split_at_mut(self.row_len);
            self.buffer = Some(rest);
            row
        }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.n, Some(self.n))
    }
}

impl<T> ExactSizeIterator for RowIter<'_, T> {}

impl<T> DoubleEndedIterator for RowIter<'_, T> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.n == 0 {
            return None;
        }
        self.n -= 1;
        Some(self.buffer.take().map(|buffer| {
            let (rest, row) = buffer.split_at_mut(buffer.len() - self.row_len);
            self.buffer = Some(rest);
            row
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_chunks_split_a_buffer_into_its_rows_in_order_however_rayon_splits_it() {
        for min_len in [1, 2, 3, 7] {
            let mut buffer: Vec<u32> = (0..21).collect();
            let rows: Vec<Vec<u32>> = par_rows(&mut buffer, 7, 3)
                .with_min_len(min_len)
                .map(|row| row.to_vec())
                .collect();
            let expected: Vec<Vec<u32>> = (0..7).map(|i| (3 * i..3 * i + 3).collect()).collect();
            assert_eq!(rows, expected);
            // Rows are the buffer's own: writing them writes it.
            par_rows(&mut buffer, 7, 3)
                .with_min_len(min_len)
                .enumerate()
                .for_each(|(i, row)| row.fill(i as u32));
            assert_eq!(buffer, (0..21).map(|i| i / 3).collect::<Vec<u32>>());
            // Zero-length rows and a missing buffer still give one item per row.
            let empty: Vec<usize> = par_rows(&mut [] as &mut [u32], 5, 0)
                .with_min_len(min_len)
                .map(|row| row.len())
                .collect();
            assert_eq!(empty, vec![0; 5]);
            let none = par_optional_rows::<u32>(None, 4, 3)
                .with_min_len(min_len)
                .filter(|row| row.is_none())
                .count();
            assert_eq!(none, 4);
        }
        // Sequential iteration from both ends (rayon uses it for reversed and zipped pieces).
        let mut buffer: Vec<u32> = (0..6).collect();
        let mut iter = Producer::into_iter(RowChunks {
            buffer: Some(&mut buffer),
            n: 3,
            row_len: 2,
        });
        assert_eq!(iter.len(), 3);
        assert_eq!(iter.next_back(), Some(Some(&mut [4, 5][..])));
        assert_eq!(iter.next(), Some(Some(&mut [0, 1][..])));
        assert_eq!(iter.next(), Some(Some(&mut [2, 3][..])));
        assert_eq!(iter.next(), None);
        assert_eq!(iter.next_back(), None);
    }
}
