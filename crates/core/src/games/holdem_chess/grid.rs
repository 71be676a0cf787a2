//! The card grid: the window of legal cells, cell sets as bit masks, and chess attacks.
//!
//! Coordinates are `(x, y)` with the community cards in the centre row `y = 0` (flop at
//! x = 0, 1, 2, turn at x = 3, river at x = 4). A window is `x0..=x1` by `y0..=y1`; cells are
//! numbered row-major from the top row (`y1`) down, left to right: `cell = (y1 - y) * width +
//! (x - x0)`.

use crate::cards::{Card, Rank};
use crate::error::NotationError;

/// Most cells a window may have.
pub const MAX_CELLS: usize = 256;

/// The community cells: flop, turn, river.
pub const COMMUNITY_CELLS: [(i32, i32); 5] = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)];

/// The rectangle of legal cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Leftmost column.
    pub x0: i32,
    /// Rightmost column.
    pub x1: i32,
    /// Bottom row.
    pub y0: i32,
    /// Top row.
    pub y1: i32,
}

impl Window {
    /// The default window, x −4..8, y −4..4.
    pub const DEFAULT: Window = Window {
        x0: -4,
        x1: 8,
        y0: -4,
        y1: 4,
    };

    /// Parses `"x0..x1:y0..y1"` (inclusive, e.g. `-4..8:-4..4`); the window must hold the
    /// five community cells and at most `MAX_CELLS` cells.
    pub fn parse(text: &str) -> Result<Window, NotationError> {
        let bad = NotationError::new;
        let syntax = "x0..x1:y0..y1, inclusive (e.g. -4..8:-4..4)";
        let (xs, ys) = text
            .split_once(':')
            .ok_or_else(|| bad(format!("expected {syntax}")))?;
        let range = |part: &str| -> Result<(i32, i32), NotationError> {
            let (a, b) = part
                .split_once("..")
                .ok_or_else(|| bad(format!("'{part}' is not a range a..b; expected {syntax}")))?;
            let num = |t: &str| {
                t.trim()
                    .parse::<i32>()
                    .ok()
                    .filter(|v| v.abs() <= 1000)
                    .ok_or_else(|| bad(format!("'{t}' is not an integer from -1000 to 1000")))
            };
            Ok((num(a)?, num(b)?))
        };
        let ((x0, x1), (y0, y1)) = (range(xs.trim())?, range(ys.trim())?);
        let v = [x0, x1, y0, y1];
        let w = Window {
            x0: v[0],
            x1: v[1],
            y0: v[2],
            y1: v[3],
        };
        if w.x0 > 0 || w.x1 < 4 || w.y0 > 0 || w.y1 < 0 {
            return Err(bad(
                "the window must contain the community cells x 0..4, y 0: need x0 <= 0, \
                 x1 >= 4, y0 <= 0 <= y1"
                    .to_string(),
            ));
        }
        let cells = (w.x1 - w.x0 + 1) as i64 * (w.y1 - w.y0 + 1) as i64;
        if cells > MAX_CELLS as i64 {
            return Err(bad(format!(
                "the window has {cells} cells; at most {MAX_CELLS} are allowed"
            )));
        }
        Ok(w)
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        (self.x1 - self.x0 + 1) as usize
    }
    /// Number of rows.
    pub fn height(&self) -> usize {
        (self.y1 - self.y0 + 1) as usize
    }
    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.width() * self.height()
    }
    /// The cell at `(x, y)`, if inside the window.
    #[inline]
    pub fn cell(&self, x: i32, y: i32) -> Option<usize> {
        (x >= self.x0 && x <= self.x1 && y >= self.y0 && y <= self.y1)
            .then(|| (self.y1 - y) as usize * self.width() + (x - self.x0) as usize)
    }
    /// The coordinates of a cell.
    #[inline]
    pub fn coords(&self, cell: usize) -> (i32, i32) {
        let w = self.width();
        (self.x0 + (cell % w) as i32, self.y1 - (cell / w) as i32)
    }
    /// The text form `x0..x1:y0..y1`.
    pub fn to_text(&self) -> String {
        format!("{}..{}:{}..{}", self.x0, self.x1, self.y0, self.y1)
    }
}

/// A set of cells as a 256-bit mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CellSet(pub [u64; 4]);

impl CellSet {
    /// The empty set.
    pub const EMPTY: CellSet = CellSet([0; 4]);

    /// Whether the set holds `cell`.
    #[inline]
    pub fn contains(&self, cell: usize) -> bool {
        self.0[cell >> 6] >> (cell & 63) & 1 == 1
    }
    /// Adds a cell.
    #[inline]
    pub fn insert(&mut self, cell: usize) {
        self.0[cell >> 6] |= 1 << (cell & 63);
    }
    /// Removes a cell.
    #[inline]
    pub fn remove(&mut self, cell: usize) {
        self.0[cell >> 6] &= !(1 << (cell & 63));
    }
    /// The union.
    #[inline]
    pub fn union(&self, other: &CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }
    /// The cells of `self` not in `other`.
    #[inline]
    pub fn minus(&self, other: &CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }
    /// Number of cells.
    #[inline]
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }
    /// Calls `f` for each cell in increasing order.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for (i, &word) in self.0.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                f(i * 64 + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
    }
}

/// The chess piece a card plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// K: the 8 neighbouring cells.
    King,
    /// Q: the 8 rays, unlimited.
    Queen,
    /// A: the 4 diagonal rays.
    Bishop,
    /// T: the 4 orthogonal rays.
    Rook,
    /// J: the 8 knight jumps.
    Knight,
    /// 2–9: one row towards the centre row, diagonally.
    Pawn,
}

impl Piece {
    /// The piece of a rank.
    pub fn of(rank: Rank) -> Piece {
        match rank {
            Rank::KING => Piece::King,
            Rank::QUEEN => Piece::Queen,
            Rank::ACE => Piece::Bishop,
            Rank::TEN => Piece::Rook,
            Rank::JACK => Piece::Knight,
            _ => Piece::Pawn,
        }
    }
}

/// Whether a card placed at `from` attacks the cell `to`. Rays are unlimited and never
/// blocked. A pawn attacks the two cells diagonally one row closer to the centre row; in the
/// centre row it attacks nothing, or (with `centre_pawn_both`) the four diagonal neighbours.
#[inline]
pub fn attacks(card: Card, from: (i32, i32), to: (i32, i32), centre_pawn_both: bool) -> bool {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    if dx == 0 && dy == 0 {
        return false;
    }
    let (ax, ay) = (dx.abs(), dy.abs());
    match Piece::of(card.rank()) {
        Piece::King => ax <= 1 && ay <= 1,
        Piece::Queen => dx == 0 || dy == 0 || ax == ay,
        Piece::Bishop => ax == ay,
        Piece::Rook => dx == 0 || dy == 0,
        Piece::Knight => (ax == 1 && ay == 2) || (ax == 2 && ay == 1),
        Piece::Pawn => {
            if ax != 1 || ay != 1 {
                false
            } else if from.1 == 0 {
                centre_pawn_both
            } else {
                // One row closer to the centre row.
                dy == -from.1.signum()
            }
        }
    }
}

/// The cells of `window` a card at `from` attacks, in cell order.
pub fn attacked_cells(
    card: Card,
    from: (i32, i32),
    window: &Window,
    centre_pawn_both: bool,
) -> Vec<(i32, i32)> {
    (0..window.cells())
        .map(|c| window.coords(c))
        .filter(|&to| attacks(card, from, to, centre_pawn_both))
        .collect()
}
