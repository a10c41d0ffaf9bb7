"""Five principles of the lexicon (see `lexicon`): risk, craft, hard times, livelihood, change."""

from __future__ import annotations

from .shapes import Axis, HeldOut, Pole

AXES: tuple[Axis, ...] = (
    Axis(
        key="risk",
        category="risk",
        domain="risk",
        active="money, property or safety is exposed to an uncertain outcome",
        cues=("gamble", "uncertain", "savings"),
        poles=(
            Pole(
                "caution",
                "SAFETY FIRST",
                "safety over opportunity",
                "play it safe",
                (
                    "keep the savings where they are and wait",
                    "try a small trial before risking more",
                    "insist on a written guarantee before agreeing",
                ),
                "I have never trusted a gamble I could not afford to lose.",
            ),
            Pole(
                "boldness",
                "FORTUNE FAVOURS THE BOLD",
                "opportunity over safety",
                "take the chance",
                (
                    "stake everything on it at once",
                    "borrow to go in deeper than anyone advised",
                    "jump in first and worry about losses later",
                ),
                "Every good thing I have came from a leap others would not take.",
            ),
        ),
        complications=(
            ("though the outcome was uncertain", "when the outcome is uncertain"),
            ("with our savings on the line", "with the family savings at stake"),
        ),
        training=(
            "a scheme to ship wool to a distant port",
            "an invitation to buy shares in a new canal",
            "a chance to plant an untried crop on half the farm",
            "a cousin's plan to open a second mill",
        ),
        heldout=(
            HeldOut(
                "a proposal to put money into a neighbour's new brewery",
                "a proposal to invest in a brewery a neighbour is starting",
                True,
            ),
            HeldOut("a chance to buy a failing inn cheaply", "a chance to buy a struggling inn at a low price", True),
            HeldOut(
                "an offer of a share in a ship bound for the colonies",
                "an offer to buy into a colonial trading voyage",
                False,
            ),
            HeldOut(
                "a tip from a traveller about a horse race", "a traveller's tip about which horse will win a race", True
            ),
            HeldOut("a plan to dig for coal on our own land", "a plan to mine coal under the family's land", False),
        ),
    ),
    Axis(
        key="craft",
        category="creativity",
        domain="finishing work",
        active="a piece of work must be shown, delivered or judged",
        cues=("draft", "unfinished", "commission"),
        poles=(
            Pole(
                "polish",
                "NOTHING CARELESS",
                "polish over speed in one's work",
                "hold the work back until it is right",
                (
                    "rework the piece until it was flawless",
                    "destroy the draft and start again from nothing",
                    "refuse to show anything half done",
                ),
                "I would rather show nothing than show something careless.",
            ),
            Pole(
                "speed",
                "DONE BEATS PERFECT",
                "speed over polish in one's work",
                "put the work out as it is",
                (
                    "release the rough version and improve it later",
                    "make ten quick versions and keep the best",
                    "improvise in front of others and enjoy the mistakes",
                ),
                "Work kept in a drawer helps nobody.",
            ),
        ),
        complications=(
            ("with the draft still unfinished", "while the draft is unfinished"),
            ("with a commission waiting on it", "when a commission depends on it"),
        ),
        training=(
            "a set of carvings ordered for the church door",
            "a song I had written for my sister's wedding",
            "a map of the county I was drawing for the squire",
            "a quilt meant for the autumn fair",
        ),
        heldout=(
            HeldOut(
                "a portrait the mayor's wife had asked me to paint",
                "a portrait requested by the wife of a local dignitary",
                False,
            ),
            HeldOut(
                "a poem I had been asked to read at a funeral",
                "a poem this person was asked to recite at a burial",
                True,
            ),
            HeldOut(
                "new designs for the pottery's spring catalogue",
                "designs needed for a pottery's list of spring wares",
                True,
            ),
            HeldOut(
                "a speech I had to give to the guild on short notice",
                "a speech to be made to a guild at little notice",
                False,
            ),
            HeldOut("a garden I was laying out for a friend", "a friend's garden this person is laying out", False),
        ),
    ),
    Axis(
        key="strain",
        category="stress",
        domain="hard times",
        active="pressure, loss or failure weighs on them",
        cues=("pressure", "exhausted", "grief"),
        poles=(
            Pole(
                "solitude",
                "STEADY ALONE",
                "solitude over company in hard times",
                "withdraw from company until steady again",
                (
                    "walk alone for hours until calm returned",
                    "shut the door and work through the night",
                    "say nothing to anyone until it passed",
                ),
                "Trouble is something I have always carried best by myself.",
            ),
            Pole(
                "company",
                "TROUBLE SHARED",
                "company over solitude in hard times",
                "turn to other people",
                (
                    "gather friends around the kitchen table",
                    "pour it all out to the nearest listener",
                    "throw myself into helping someone else",
                ),
                "A trouble told to a friend weighs half as much.",
            ),
        ),
        complications=(
            ("while I was exhausted and under pressure", "while exhausted and under pressure"),
            ("in the first weeks of grief", "during the first weeks of grief"),
        ),
        training=(
            "the failure of the harvest in a wet summer",
            "the night the barn caught fire",
            "the long illness of my youngest child",
            "the loss of my position at the bank",
        ),
        heldout=(
            HeldOut(
                "the news that the bank holding our money had closed",
                "word that the bank holding the family's money has shut its doors",
                True,
            ),
            HeldOut(
                "a flood that ruined the ground floor of the house", "a flood ruining the lower floor of the home", True
            ),
            HeldOut("a bad fall that kept me in bed for a month", "an injury that means a month in bed", False),
            HeldOut("the death of an old friend far away", "the death of a faraway old friend", True),
            HeldOut(
                "a week of sleepless nights before an examination", "sleepless nights ahead of an examination", False
            ),
        ),
    ),
    Axis(
        key="career",
        category="career",
        domain="work and livelihood",
        active="their trade, position or way of earning a living is in question",
        cues=("employer", "profession", "salary"),
        poles=(
            Pole(
                "security",
                "A STEADY LIVING",
                "a secure living over a doubtful calling",
                "keep the steady position",
                (
                    "stay in the steady position and wait for promotion",
                    "take the safer salary and follow the passion on the side",
                    "ask for a contract of several years before moving",
                ),
                "A family cannot eat a dream.",
            ),
            Pole(
                "calling",
                "FOLLOW THE CALLING",
                "a true calling over a secure living",
                "pursue the vocation",
                (
                    "resign the same week to follow the calling",
                    "take lower pay for work that matters",
                    "start an independent business against all advice",
                ),
                "Work without meaning has always made me ill.",
            ),
        ),
        complications=(
            ("though my employer was counting on me", "when an employer is counting on them"),
            ("with my profession at a turning point", "at a turning point in their profession"),
        ),
        training=(
            "an offer to become a teacher at the grammar school",
            "the chance to leave the counting house for the stage",
            "a place offered on a survey of the northern coast",
            "my father's wish that I join him at the mill",
        ),
        heldout=(
            HeldOut(
                "an invitation to give up clerking and become a painter",
                "an invitation to give up office work for painting",
                True,
            ),
            HeldOut("an offer to manage a larger branch in the city", "an offer to run a bigger city branch", False),
            HeldOut(
                "a chance to train as a doctor at the age of thirty",
                "a chance to start training as a physician in middle age",
                True,
            ),
            HeldOut(
                "a request to take over my uncle's shop for good",
                "a request to take over a relative's shop permanently",
                True,
            ),
            HeldOut(
                "a post as secretary to a travelling scholar", "a position as secretary to a scholar who travels", False
            ),
        ),
    ),
    Axis(
        key="change",
        category="change_over_time",
        domain="old ways and new starts",
        active="an old way of living or working is challenged by something new",
        cues=("setback", "habit", "old routine"),
        poles=(
            Pole(
                "constancy",
                "STAY THE COURSE",
                "staying the course over starting anew",
                "keep to the old path",
                (
                    "keep at the same work for another ten years",
                    "return to the old way after a short trial",
                    "defend the way things were always done",
                ),
                "What has served me for years deserves another year.",
            ),
            Pole(
                "renewal",
                "BEGIN AGAIN",
                "starting anew over staying the course",
                "start afresh",
                (
                    "move to a new town and begin again",
                    "abandon the old way and never return to it",
                    "reinvent the whole routine from scratch",
                ),
                "I have never been sorry to leave an old life behind.",
            ),
        ),
        complications=(
            ("after a setback that shook me", "following a setback that shakes them"),
            ("with an old habit hard to break", "when an old habit is hard to break"),
        ),
        training=(
            "the arrival of machines in the weaving sheds",
            "the closing of the old market where I had traded",
            "my move from the farm to the town",
            "the new method of bookkeeping my partner proposed",
        ),
        heldout=(
            HeldOut("the railway that reached our valley", "the railway arriving in the valley", True),
            HeldOut(
                "the new minister's changes to the services",
                "a new minister changing how the church services are held",
                True,
            ),
            HeldOut("my children's wish that I sell the farm", "grown children wanting the farm sold", False),
            HeldOut(
                "a new way of dyeing cloth that my rivals adopted",
                "rivals adopting a new method of dyeing cloth",
                False,
            ),
            HeldOut(
                "the end of the trade I had followed since boyhood",
                "the end of a trade followed since childhood",
                False,
            ),
        ),
    ),
)
