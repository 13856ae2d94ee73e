//! Node addressing (docs/fs.md "Layout, logs and nodes"): the inode holds 923 block addresses, then
//! two direct nodes of 1018, then indirect nodes of 1018 direct nodes each (the double-indirect
//! level is folded into the indirect sequence). A file's node *index* 0 is its inode; each index
//! gets a node id (nid) when first needed; the NAT maps nid → block, so a moved node dirties only
//! its NAT entry, never its parent (no wandering tree).

/// Addresses in the inode.
pub const ADDRS_PER_INODE: u64 = 923;
/// Addresses per direct node, node ids per indirect node.
pub const ADDRS_PER_BLOCK: u64 = 1018;
/// Node indices per indirect group: the indirect node and its 1018 direct nodes.
const GROUP: u64 = ADDRS_PER_BLOCK + 1;

/// The kind of a node, which picks its log (dir nodes hot, file nodes warm, indirect cold).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Inode,
    Direct,
    Indirect,
}

/// Node index holding the address of file block `fb`.
#[inline]
pub fn node_of(fb: u64) -> u32 {
    if fb < ADDRS_PER_INODE {
        return 0;
    }
    let r = fb - ADDRS_PER_INODE;
    if r < 2 * ADDRS_PER_BLOCK {
        return 1 + (r / ADDRS_PER_BLOCK) as u32;
    }
    let k = (r - 2 * ADDRS_PER_BLOCK) / ADDRS_PER_BLOCK;
    (3 + (k / ADDRS_PER_BLOCK) * GROUP + 1 + k % ADDRS_PER_BLOCK) as u32
}

/// The node index whose block points at node `idx` (the inode for the first level).
#[inline]
pub fn parent_of(idx: u32) -> u32 {
    if idx < 3 || (idx as u64 - 3).is_multiple_of(GROUP) {
        0
    } else {
        (3 + (idx as u64 - 3) / GROUP * GROUP) as u32
    }
}

#[inline]
pub fn kind_of(idx: u32) -> NodeKind {
    match idx {
        0 => NodeKind::Inode,
        1 | 2 => NodeKind::Direct,
        i if (i as u64 - 3).is_multiple_of(GROUP) => NodeKind::Indirect,
        _ => NodeKind::Direct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_indices_follow_the_inode_layout() {
        assert_eq!(node_of(0), 0);
        assert_eq!(node_of(922), 0);
        assert_eq!(node_of(923), 1);
        assert_eq!(node_of(923 + 1018), 2);
        let first_ind = 923 + 2 * 1018;
        assert_eq!(node_of(first_ind), 4);
        assert_eq!(parent_of(4), 3);
        assert_eq!(kind_of(3), NodeKind::Indirect);
        assert_eq!(kind_of(4), NodeKind::Direct);
        assert_eq!(node_of(first_ind + 1018 * 1018), 3 + 1019 + 1);
        assert_eq!(parent_of(3 + 1019 + 1), 3 + 1019);
        assert_eq!(parent_of(1), 0);
        assert_eq!(parent_of(3), 0);
    }
}
