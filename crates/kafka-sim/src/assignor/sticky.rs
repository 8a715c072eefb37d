//! The sticky assignors (`AbstractStickyAssignor`, used by `StickyAssignor`
//! and `CooperativeStickyAssignor`): previously owned partitions under the
//! generation rules, the constrained path when every member subscribes to
//! the same topics (`constrainedAssign`), the general path otherwise
//! (`generalAssign`, with its partition movements), and, for the
//! cooperative protocol, which partitions must be revoked first.
//!
//! Rack awareness (KIP-881, Kafka 3.5+; `AbstractStickyAssignor.RackInfo`
//! and the two builders, Kafka 3.9 lines 449-535, 664-790, 1020-1060 and
//! 1325-1340): when members send a `client.rack` and the partitions'
//! replica racks are not the same for every partition, owned partitions off
//! their member's rack are given up (the constrained path may hand them
//! back), the constrained path fills members round robin within racks
//! before the plain round robin (partitions with the fewest in-rack members
//! first), and the general path gives each partition to the least loaded
//! in-rack member before it falls back to the least loaded member. Kafka's
//! rack branch in `performReassignments` picks the same move as its plain
//! branch, so the movement phase needs no rack case here.

use super::*;

/// `AbstractStickyAssignor.RackInfo`: each member's rack and each
/// partition's replica racks, both empty unless rack-aware assignment is
/// used (`useRackAwareAssignment` over all the group's partitions).
pub(super) struct StickyRacks {
    active: bool,
    member: Vec<Option<String>>,
    /// Per global partition index.
    partition: Vec<SortedSet<String>>,
    /// Per global partition index, `numConsumersByPartition`: how many
    /// members sit on a rack holding one of its replicas.
    in_rack_members: Vec<usize>,
}

impl StickyRacks {
    /// `prefer` is Kafka's test-only `preferRackAwareLogic`: rack-aware even
    /// when every partition has replicas on every rack.
    pub(super) fn new(
        ctx: &Ctx,
        racks: &PartitionRacks,
        members: &[MemberSubscription],
        prefer: bool,
    ) -> StickyRacks {
        let off = StickyRacks {
            active: false,
            member: vec![None; ctx.members()],
            partition: Vec::new(),
            in_rack_members: Vec::new(),
        };
        let member: Vec<Option<String>> = members
            .iter()
            .map(|m| m.rack_id.clone().filter(|r| !r.is_empty()))
            .collect();
        if member.iter().all(Option::is_none) {
            return off;
        }
        let mut partition = Vec::with_capacity(ctx.total);
        for (t, name) in ctx.topics.iter().enumerate() {
            let of_topic = racks.get(name);
            for p in 0..ctx.counts[t] as usize {
                partition.push(of_topic.and_then(|v| v.get(p).cloned()).unwrap_or_default());
            }
        }
        let all: SortedSet<&String> = partition.iter().flatten().collect();
        let mut per_rack: SortedMap<&String, usize> = SortedMap::new();
        for r in member.iter().flatten() {
            *per_rack.entry(r).or_default() += 1;
        }
        let use_racks = per_rack.keys().any(|r| all.contains(r))
            && (prefer || !partition.iter().all(|s| s.len() == all.len()));
        if !use_racks {
            return off;
        }
        let in_rack_members = partition
            .iter()
            .map(|s| {
                s.iter()
                    .map(|r| per_rack.get(r).copied().unwrap_or(0))
                    .sum()
            })
            .collect();
        StickyRacks {
            active: true,
            member,
            partition,
            in_rack_members,
        }
    }

    /// `racksMismatch`: the member has a rack and the partition no replica there.
    fn mismatch(&self, m: usize, g: usize) -> bool {
        self.member[m]
            .as_ref()
            .is_some_and(|r| !self.partition[g].contains(r))
    }

    /// `nextRackConsumer`: from `first`, wrapping, the index of the first
    /// member (`at(i)` of `len`) whose rack holds a replica of partition `g`.
    fn next_rack_consumer(
        &self,
        g: usize,
        len: usize,
        first: usize,
        at: impl Fn(usize) -> usize,
    ) -> Option<usize> {
        let racks = &self.partition[g];
        if racks.is_empty() {
            return None;
        }
        (0..len).map(|i| (first + i) % len).find(|&i| {
            self.member[at(i)]
                .as_ref()
                .is_some_and(|r| racks.contains(r))
        })
    }
}

/// Previously owned partitions after the generation rules, and whether all
/// members subscribe to the same topics (`allSubscriptionsEqual`).
pub(super) struct Owned {
    all_equal: bool,
    max_generation: i32,
    current: Vec<Vec<Tp>>,
    multiple_owners: SortedSet<Tp>,
}

pub(super) fn previously_owned(ctx: &Ctx) -> Owned {
    let mut all_equal = true;
    let mut first: Option<&SortedSet<String>> = None;
    let mut max_generation = DEFAULT_GENERATION;
    let mut current = vec![Vec::new(); ctx.members()];
    let mut owner_of: HashMap<Tp, usize> = HashMap::new();
    let mut multiple_owners = SortedSet::new();
    for &m in &ctx.hash_order {
        match first {
            None => first = Some(&ctx.raw_topics[m]),
            Some(f) if *f != ctx.raw_topics[m] => all_equal = false,
            _ => {}
        }
        let gen = ctx.generation[m].unwrap_or(DEFAULT_GENERATION);
        max_generation = max_generation.max(gen);
        for &tp in &ctx.owned[m] {
            match owner_of.get(&tp).copied() {
                None => {
                    current[m].push(tp);
                    owner_of.insert(tp, m);
                }
                Some(other) => {
                    let other_gen = ctx.generation[other].unwrap_or(DEFAULT_GENERATION);
                    if gen == other_gen {
                        multiple_owners.insert(tp);
                        current[other].retain(|x| *x != tp);
                        owner_of.insert(tp, m);
                    } else if gen > other_gen {
                        current[m].push(tp);
                        current[other].retain(|x| *x != tp);
                        owner_of.insert(tp, m);
                    }
                }
            }
        }
    }
    Owned {
        all_equal,
        max_generation,
        current,
        multiple_owners,
    }
}

/// The sticky assignment, and (constrained case only) the partitions that
/// change owner, partition → new owner.
/// Per member (input order), its partitions.
pub(super) type Lists = Vec<Vec<Tp>>;
/// Partitions changing owner: (partition, new owner).
pub(super) type Transfers = Vec<(Tp, usize)>;

pub(super) fn sticky(ctx: &Ctx, racks: &StickyRacks) -> (Lists, Option<Transfers>) {
    if ctx.members() == 0 {
        return (Vec::new(), Some(Vec::new()));
    }
    let owned = previously_owned(ctx);
    if owned.all_equal {
        let (lists, transferring) = constrained(ctx, owned, racks);
        (lists, Some(transferring))
    } else {
        (General::new(ctx, owned, racks).build(), None)
    }
}

/// `ConstrainedAssignmentBuilder`: every member subscribes to the same topics.
pub(super) fn constrained(
    ctx: &Ctx,
    owned: Owned,
    racks: &StickyRacks,
) -> (Vec<Vec<Tp>>, Vec<(Tp, usize)>) {
    let n = ctx.members();
    let total = ctx.total;
    let min_quota = total / n;
    let max_quota = total.div_ceil(n);
    let expected_over = total % n;
    let mut current_over = 0usize;
    let mut under: Vec<usize> = Vec::new();
    let mut exact: VecDeque<usize> = VecDeque::new();
    let mut assignment: Vec<Vec<Tp>> = vec![Vec::new(); n];
    let mut assigned = vec![false; total];
    let mut maybe_revoked: HashMap<Tp, usize> = HashMap::new();
    let mut transferring: Vec<(Tp, usize)> = Vec::new();

    for &m in &ctx.hash_order {
        // Owned partitions off the member's rack may go to another member.
        let mut mine: Vec<Tp> = Vec::new();
        for &tp in &owned.current[m] {
            if racks.mismatch(m, ctx.gidx(tp)) {
                maybe_revoked.insert(tp, m);
            } else if !owned.multiple_owners.contains(&tp) {
                mine.push(tp);
            }
        }
        mine.sort_by(|a, b| a.p.cmp(&b.p).then(a.t.cmp(&b.t)));
        if mine.len() < min_quota {
            for tp in &mine {
                assigned[ctx.gidx(*tp)] = true;
            }
            assignment[m].extend(mine);
            under.push(m);
        } else if mine.len() >= max_quota && current_over < expected_over {
            current_over += 1;
            if current_over == expected_over {
                exact.clear();
            }
            for tp in &mine[..max_quota] {
                assigned[ctx.gidx(*tp)] = true;
            }
            assignment[m].extend_from_slice(&mine[..max_quota]);
            for tp in &mine[max_quota..] {
                maybe_revoked.insert(*tp, m);
            }
        } else {
            for tp in &mine[..min_quota] {
                assigned[ctx.gidx(*tp)] = true;
            }
            assignment[m].extend_from_slice(&mine[..min_quota]);
            for tp in &mine[min_quota..] {
                maybe_revoked.insert(*tp, m);
            }
            if current_over < expected_over {
                exact.push_back(m);
            }
        }
    }

    let mut unassigned: Vec<Tp> = Vec::with_capacity(total);
    for t in 0..ctx.topics.len() as u32 {
        for p in 0..ctx.counts[t as usize] {
            let tp = Tp { t, p };
            if !assigned[ctx.gidx(tp)] {
                unassigned.push(tp);
            }
        }
    }
    under.sort_by_key(|&m| ctx.rank[m]);
    exact.make_contiguous().sort_by_key(|&m| ctx.rank[m]);
    let give = |assignment: &mut Vec<Vec<Tp>>,
                transferring: &mut Vec<(Tp, usize)>,
                tp: Tp,
                m: usize| {
        assignment[m].push(tp);
        if maybe_revoked.get(&tp).is_some_and(|&o| o != m) || owned.multiple_owners.contains(&tp) {
            transferring.push((tp, m));
        }
    };

    // assignRackAwareRoundRobin: partitions with the fewest in-rack members
    // first, each to the next unfilled member on one of its racks.
    if racks.active {
        unassigned.sort_by_key(|tp| racks.in_rack_members[ctx.gidx(*tp)]);
        let mut rest = Vec::with_capacity(unassigned.len());
        let mut next = 0usize;
        for tp in unassigned {
            let g = ctx.gidx(tp);
            let mut chosen = None;
            if let Some(i) = racks.next_rack_consumer(g, under.len(), next, |i| under[i]) {
                let m = under[i];
                let count = assignment[m].len() + 1;
                let mut after = i;
                if count >= min_quota {
                    under.remove(i);
                    if count < max_quota && current_over < expected_over {
                        exact.push_back(m);
                    }
                } else {
                    after += 1;
                }
                next = if under.is_empty() {
                    0
                } else {
                    after % under.len()
                };
                chosen = Some(m);
            } else if !exact.is_empty() {
                if let Some(i) = racks.next_rack_consumer(g, exact.len(), 0, |i| exact[i]) {
                    let m = exact[i];
                    if assignment[m].len() + 1 == max_quota {
                        exact.remove(i);
                        current_over += 1;
                        if current_over == expected_over {
                            exact.clear();
                        }
                    }
                    chosen = Some(m);
                }
            }
            match chosen {
                Some(m) => give(&mut assignment, &mut transferring, tp, m),
                None => rest.push(tp),
            }
        }
        unassigned = rest;
    }

    // assignRoundRobin: an iterator over `under` that restarts at its head.
    let mut pos = 0usize;
    for tp in unassigned {
        let m;
        let mut from_under = false;
        if pos < under.len() {
            m = under[pos];
            pos += 1;
            from_under = true;
        } else if under.is_empty() && exact.is_empty() {
            // Kafka throws IllegalStateException here; the quotas make it unreachable.
            break;
        } else if under.is_empty() {
            m = exact.pop_front().expect("checked non-empty");
        } else {
            pos = 0;
            m = under[pos];
            pos += 1;
            from_under = true;
        }
        give(&mut assignment, &mut transferring, tp, m);
        let count = assignment[m].len();
        if count == min_quota {
            if from_under {
                pos -= 1;
                under.remove(pos);
            }
            exact.push_back(m);
        }
        // (Kafka counts members reaching maxQuota here only to log a warning.)
    }
    (assignment, transferring)
}

/// A Java `HashSet<TopicPartition>` small enough to scan: enough to know
/// which element its iterator returns first.
#[derive(Default)]
pub(super) struct JavaSet {
    items: Vec<(Tp, u64)>,
    max_len: usize,
}

impl JavaSet {
    fn insert(&mut self, tp: Tp, seq: u64) {
        if !self.items.iter().any(|(x, _)| *x == tp) {
            self.items.push((tp, seq));
            self.max_len = self.max_len.max(self.items.len());
        }
    }
    fn remove(&mut self, tp: Tp) {
        self.items.retain(|(x, _)| *x != tp);
    }
    fn first(&self, ctx: &Ctx) -> Option<Tp> {
        let mask = (java_capacity(self.max_len) - 1) as u32;
        self.items
            .iter()
            .min_by_key(|(tp, seq)| {
                (
                    spread(tp_hash(ctx.topic_hash[tp.t as usize], tp.p)) & mask,
                    *seq,
                )
            })
            .map(|(tp, _)| *tp)
    }
}

/// `PartitionMovements`: which partitions moved between which members, so a
/// move back undoes an earlier move instead of adding another.
#[derive(Default)]
pub(super) struct Movements {
    moves: HashMap<Tp, (usize, usize)>,
    by_topic: HashMap<u32, HashMap<(usize, usize), JavaSet>>,
    seq: u64,
}

impl Movements {
    fn remove_record(&mut self, tp: Tp) -> (usize, usize) {
        let pair = self.moves.remove(&tp).expect("recorded movement");
        let topic = self.by_topic.get_mut(&tp.t).expect("topic movements");
        let set = topic.get_mut(&pair).expect("pair movements");
        set.remove(tp);
        if set.items.is_empty() {
            topic.remove(&pair);
        }
        if topic.is_empty() {
            self.by_topic.remove(&tp.t);
        }
        pair
    }
    fn add_record(&mut self, tp: Tp, pair: (usize, usize)) {
        self.moves.insert(tp, pair);
        self.seq += 1;
        self.by_topic
            .entry(tp.t)
            .or_default()
            .entry(pair)
            .or_default()
            .insert(tp, self.seq);
    }
    fn move_partition(&mut self, tp: Tp, old: usize, new: usize) {
        if self.moves.contains_key(&tp) {
            let existing = self.remove_record(tp);
            if existing.0 != new {
                self.add_record(tp, (existing.0, new));
            }
        } else {
            self.add_record(tp, (old, new));
        }
    }
    fn actual_partition_to_move(&self, ctx: &Ctx, tp: Tp, mut old: usize, new: usize) -> Tp {
        let Some(topic) = self.by_topic.get(&tp.t) else {
            return tp;
        };
        if let Some(pair) = self.moves.get(&tp) {
            old = pair.0;
        }
        match topic.get(&(new, old)) {
            None => tp,
            Some(set) => set.first(ctx).unwrap_or(tp),
        }
    }
}

/// `GeneralAssignmentBuilder`: members subscribe to different topics.
pub(super) struct General<'a> {
    ctx: &'a Ctx,
    racks: &'a StickyRacks,
    max_generation: i32,
    /// None once a member is set aside as unable to take part.
    current: Vec<Option<Vec<Tp>>>,
    /// Owner per global partition index (`currentPartitionConsumer`).
    owner: Vec<Option<usize>>,
    /// Members sorted by (assignment size, member id).
    sorted: SortedSet<(usize, usize)>,
    by_rank: Vec<usize>,
    /// Number of members subscribed to each topic.
    potential: Vec<usize>,
    sorted_all: Vec<Tp>,
    revocation_required: bool,
    movements: Movements,
    original_owned: Vec<Vec<Tp>>,
}

impl<'a> General<'a> {
    fn new(ctx: &'a Ctx, owned: Owned, racks: &'a StickyRacks) -> General<'a> {
        let n = ctx.members();
        let mut potential = vec![0usize; ctx.topics.len()];
        for s in &ctx.subs {
            for &t in s {
                potential[t as usize] += 1;
            }
        }
        let mut owner = vec![None; ctx.total];
        for (m, list) in owned.current.iter().enumerate() {
            for tp in list {
                owner[ctx.gidx(*tp)] = Some(m);
            }
        }
        let mut topic_order: Vec<u32> = (0..ctx.topics.len() as u32).collect();
        topic_order.sort_by_key(|&t| (potential[t as usize], t));
        let mut by_rank = vec![0; n];
        for m in 0..n {
            by_rank[ctx.rank[m]] = m;
        }
        General {
            ctx,
            racks,
            max_generation: owned.max_generation,
            current: owned.current.into_iter().map(Some).collect(),
            owner,
            sorted: SortedSet::new(),
            by_rank,
            sorted_all: ctx.all_partitions(&topic_order),
            potential,
            revocation_required: false,
            movements: Movements::default(),
            original_owned: ctx.owned.clone(),
        }
    }

    fn size(&self, m: usize) -> usize {
        self.current[m].as_ref().map_or(0, Vec::len)
    }

    fn key(&self, m: usize) -> (usize, usize) {
        (self.size(m), self.ctx.rank[m])
    }

    fn build(mut self) -> Vec<Vec<Tp>> {
        let ctx = self.ctx;
        // prepopulateCurrentAssignments: the owners of older generations.
        let mut prev: HashMap<Tp, (usize, i32)> = HashMap::new();
        for &m in &ctx.hash_order {
            let gen = match ctx.generation[m] {
                Some(g) if g < self.max_generation => g,
                None if self.max_generation > DEFAULT_GENERATION => DEFAULT_GENERATION,
                _ => continue,
            };
            for &tp in &self.original_owned[m] {
                match prev.get(&tp) {
                    Some(&(_, g)) if gen <= g => {}
                    _ => {
                        prev.insert(tp, (m, gen));
                    }
                }
            }
        }
        // assignOwnedPartitions: drop what a member no longer subscribes to,
        // or (rack-aware) what is off its rack.
        let mut assigned = vec![false; ctx.total];
        for m in 0..ctx.members() {
            let list = self.current[m].take().unwrap_or_default();
            let mut keep = Vec::with_capacity(list.len());
            for tp in list {
                if ctx.subscribed[m][tp.t as usize] && !self.racks.mismatch(m, ctx.gidx(tp)) {
                    assigned[ctx.gidx(tp)] = true;
                    keep.push(tp);
                } else {
                    self.revocation_required = true;
                }
            }
            self.current[m] = Some(keep);
        }
        let mut unassigned: Vec<Tp> = self
            .sorted_all
            .iter()
            .copied()
            .filter(|tp| !assigned[ctx.gidx(*tp)])
            .collect();
        for m in 0..ctx.members() {
            self.sorted.insert(self.key(m));
        }
        self.balance(&prev, &mut unassigned);
        self.current
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect()
    }

    fn max_assignment_size(&self, m: usize) -> usize {
        self.ctx.subs[m]
            .iter()
            .map(|&t| self.ctx.counts[t as usize] as usize)
            .sum()
    }

    fn is_balanced(&self) -> bool {
        let (Some(&(min, _)), Some(&(max, _))) = (self.sorted.first(), self.sorted.last()) else {
            return true;
        };
        if min + 1 >= max {
            return true;
        }
        for &(size, r) in &self.sorted {
            let m = self.by_rank[r];
            if size == self.max_assignment_size(m) {
                continue;
            }
            for &t in &self.ctx.subs[m] {
                for p in 0..self.ctx.counts[t as usize] {
                    let g = self.ctx.gidx(Tp { t, p });
                    match self.owner[g] {
                        Some(o)
                            if o != m && self.current[o].is_some() && size + 1 < self.size(o) =>
                        {
                            return false;
                        }
                        _ => {}
                    }
                }
            }
        }
        true
    }

    fn balance_score(lists: &[Option<Vec<Tp>>]) -> i64 {
        let sizes: Vec<i64> = lists.iter().flatten().map(|l| l.len() as i64).collect();
        let mut score = 0;
        for i in 0..sizes.len() {
            for j in i + 1..sizes.len() {
                score += (sizes[i] - sizes[j]).abs();
            }
        }
        score
    }

    /// `maybeAssignPartition`: to the least loaded subscriber (on one of
    /// the partition's racks when `in_rack`); false when there is none.
    fn assign_to_least_loaded(&mut self, tp: Tp, in_rack: bool) -> bool {
        let g = self.ctx.gidx(tp);
        let found = self
            .sorted
            .iter()
            .map(|&(_, r)| self.by_rank[r])
            .find(|&m| {
                self.ctx.subscribed[m][tp.t as usize] && !(in_rack && self.racks.mismatch(m, g))
            });
        if let Some(m) = found {
            self.sorted.remove(&self.key(m));
            self.current[m].get_or_insert_with(Vec::new).push(tp);
            self.owner[g] = Some(m);
            self.sorted.insert(self.key(m));
        }
        found.is_some()
    }

    fn can_participate(&self, m: usize) -> bool {
        let size = self.size(m);
        if size < self.max_assignment_size(m) {
            return true;
        }
        self.current[m]
            .as_ref()
            .is_some_and(|l| l.iter().any(|tp| self.potential[tp.t as usize] >= 2))
    }

    fn balance(&mut self, prev: &HashMap<Tp, (usize, i32)>, unassigned: &mut Vec<Tp>) {
        let ctx = self.ctx;
        let initializing = self.sorted.last().is_none_or(|&(size, _)| size == 0);
        let mut to_assign = unassigned.clone();
        if self.racks.active {
            to_assign.retain(|&tp| {
                !(self.potential[tp.t as usize] > 0 && self.assign_to_least_loaded(tp, true))
            });
        }
        for tp in to_assign {
            if self.potential[tp.t as usize] > 0 {
                self.assign_to_least_loaded(tp, false);
            }
        }
        let fixed_topic = |t: u32| self.potential[t as usize] < 2;
        self.sorted_all.retain(|tp| !fixed_topic(tp.t));
        unassigned.retain(|tp| !fixed_topic(tp.t));
        let mut fixed: Vec<(usize, Vec<Tp>)> = Vec::new();
        for m in 0..ctx.members() {
            if !self.can_participate(m) {
                self.sorted.remove(&self.key(m));
                fixed.push((m, self.current[m].take().unwrap_or_default()));
            }
        }
        let pre_balance = self.current.clone();
        let pre_owner = self.owner.clone();
        if !self.revocation_required {
            let list = unassigned.clone();
            self.perform_reassignments(&list, prev);
        }
        let list = self.sorted_all.clone();
        let performed = self.perform_reassignments(&list, prev);
        if !initializing
            && performed
            && Self::balance_score(&self.current) >= Self::balance_score(&pre_balance)
        {
            self.current = pre_balance;
            self.owner = pre_owner;
            self.sorted = (0..ctx.members())
                .filter(|&m| self.current[m].is_some())
                .map(|m| self.key(m))
                .collect();
        }
        for (m, list) in fixed {
            self.current[m] = Some(list);
            self.sorted.insert(self.key(m));
        }
    }

    fn perform_reassignments(&mut self, list: &[Tp], prev: &HashMap<Tp, (usize, i32)>) -> bool {
        let mut performed = false;
        loop {
            let mut modified = false;
            for &tp in list {
                if self.is_balanced() {
                    break;
                }
                let Some(m) = self.owner[self.ctx.gidx(tp)] else {
                    continue;
                };
                if let Some(&(p, _)) = prev.get(&tp) {
                    if self.current[p].is_some() && self.size(m) > self.size(p) + 1 {
                        self.reassign(tp, p);
                        performed = true;
                        modified = true;
                        continue;
                    }
                }
                let size = self.size(m);
                let more_loaded = (0..self.ctx.members()).any(|o| {
                    self.ctx.subscribed[o][tp.t as usize]
                        && self.current[o].is_some()
                        && size > self.size(o) + 1
                });
                if more_loaded {
                    let to = self
                        .sorted
                        .iter()
                        .map(|&(_, r)| self.by_rank[r])
                        .find(|&o| self.ctx.subscribed[o][tp.t as usize])
                        .expect("a subscriber exists");
                    self.reassign(tp, to);
                    performed = true;
                    modified = true;
                }
            }
            if !modified {
                return performed;
            }
        }
    }

    fn reassign(&mut self, tp: Tp, to: usize) {
        let from = self.owner[self.ctx.gidx(tp)].expect("assigned");
        let actual = self
            .movements
            .actual_partition_to_move(self.ctx, tp, from, to);
        let old = self.owner[self.ctx.gidx(actual)].expect("assigned");
        self.sorted.remove(&self.key(old));
        self.sorted.remove(&self.key(to));
        self.movements.move_partition(actual, old, to);
        if let Some(l) = self.current[old].as_mut() {
            if let Some(i) = l.iter().position(|x| *x == actual) {
                l.remove(i);
            }
        }
        self.current[to].get_or_insert_with(Vec::new).push(actual);
        self.owner[self.ctx.gidx(actual)] = Some(to);
        self.sorted.insert(self.key(to));
        self.sorted.insert(self.key(old));
    }
}

/// `computePartitionsTransferringOwnership`: assigned to one member, owned by another.
pub(super) fn compute_transferring(ctx: &Ctx, lists: &[Vec<Tp>]) -> Vec<(Tp, usize)> {
    let mut added: Vec<(Tp, usize)> = Vec::new();
    let mut revoked: SortedSet<Tp> = SortedSet::new();
    for (m, list) in lists.iter().enumerate() {
        let owned: SortedSet<Tp> = SortedSet::from_iter(ctx.owned[m].iter().copied());
        let assigned: SortedSet<Tp> = SortedSet::from_iter(list.iter().copied());
        added.extend(
            list.iter()
                .filter(|tp| !owned.contains(tp))
                .map(|tp| (*tp, m)),
        );
        revoked.extend(ctx.owned[m].iter().filter(|tp| !assigned.contains(tp)));
    }
    added.retain(|(tp, _)| revoked.contains(tp));
    added
}
