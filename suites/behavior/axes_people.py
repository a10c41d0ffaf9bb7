"""Five principles of the lexicon (see `lexicon`): deciding, loyalty, trust, quarrels, learning."""

from __future__ import annotations

from .shapes import Axis, HeldOut, Pole

AXES: tuple[Axis, ...] = (
    Axis(
        key="deliberation",
        category="decisions",
        domain="how fast to decide",
        active="a choice has to be made between courses of action",
        cues=("deadline", "no time to", "immediately"),
        poles=(
            Pole(
                "deliberation",
                "WEIGH BEFORE ACTING",
                "careful deliberation over quick instinct",
                "take time to think it over before deciding",
                (
                    "sleep on it before giving any answer",
                    "write out the arguments on both sides before choosing",
                    "ask for a week to gather every fact first",
                ),
                "I have always distrusted a choice made in a rush.",
            ),
            Pole(
                "instinct",
                "FIRST INSTINCT RULES",
                "quick instinct over careful deliberation",
                "go with the first instinct",
                (
                    "decide on the spot and never look back",
                    "trust the gut and answer within the hour",
                    "commit straight away and sort out the details later",
                ),
                "The first feeling has rarely misled me.",
            ),
        ),
        complications=(
            ("with the deadline only hours away", "with a deadline only hours off"),
            ("with no time to consult anyone", "when there is no time to ask around"),
        ),
        training=(
            "an offer to buy the family house, made by a neighbour over supper",
            "a choice between two apprenticeships in different towns",
            "a proposal of marriage from a friend of many years",
            "a request to stand for the parish council",
        ),
        heldout=(
            HeldOut(
                "a choice between two houses to rent for the winter",
                "having to pick one of two houses to let for the coming winter",
                True,
            ),
            HeldOut(
                "an invitation to join a long voyage as the ship's clerk",
                "being invited to sail on a long voyage as clerk of the ship",
                False,
            ),
            HeldOut(
                "the question of which of two doctors should care for my mother",
                "having to choose which of two physicians should look after an ageing parent",
                True,
            ),
            HeldOut(
                "an offer to take over a small shop from a retiring owner",
                "being offered a small shop by an owner who is giving it up",
                False,
            ),
            HeldOut("a choice of which school to send my son to", "having to pick a school for a child", True),
        ),
    ),
    Axis(
        key="loyalty",
        category="values",
        domain="loyalty and gain",
        active="an advantage can be had at the cost of someone who stood by them",
        cues=("loyalty", "long-time ally", "old allies"),
        poles=(
            Pole(
                "loyalty",
                "LOYALTY BEFORE GAIN",
                "loyalty to old allies over personal gain",
                "stay loyal to old allies",
                (
                    "turn the offer down and stay with the old partner",
                    "tell the old partner about the offer before anything else",
                    "refuse the money and say so openly",
                ),
                "I would rather be poor than be the one who walked away.",
            ),
            Pole(
                "gain",
                "GAIN DECIDES",
                "personal gain over old loyalties",
                "take the better deal",
                (
                    "accept the offer and break the news afterwards",
                    "use the offer to bargain for a larger share",
                    "quietly take the deal and keep it private",
                ),
                "Sentiment never paid anyone's rent.",
            ),
        ),
        complications=(
            ("though it meant crossing a long-time ally", "when it would cross a long-time ally"),
            ("though my loyalty was being tested", "when their loyalty is put to the test"),
        ),
        training=(
            "a rival firm's offer to double my wages if I left my partner",
            "a chance to sell a friend's secret recipe to a large bakery",
            "a buyer offering more for the land than my cousin could pay",
            "an invitation to leave the old workshop for a wealthier patron",
        ),
        heldout=(
            HeldOut(
                "a rich merchant's offer to hire me away from the man who trained me",
                "a wealthy trader offering to hire this person away from the one who trained them",
                False,
            ),
            HeldOut(
                "the chance to take a client from a friend who had fallen ill",
                "an opportunity to take over a sick friend's best client",
                True,
            ),
            HeldOut(
                "a reward offered for information about a neighbour's debts",
                "a reward being offered for details of what a neighbour owes",
                True,
            ),
            HeldOut(
                "a better-paid post offered by the competitor of my oldest customer",
                "a better-paid position offered by a competitor of a longstanding customer",
                False,
            ),
            HeldOut(
                "an offer to buy my share of the business behind my partner's back",
                "an offer to buy out this person's share without a partner knowing",
                True,
            ),
        ),
    ),
    Axis(
        key="trust",
        category="relationships",
        domain="trust in people",
        active="someone not yet known asks to come closer",
        cues=("stranger", "newcomer", "acquaintance"),
        poles=(
            Pole(
                "caution with people",
                "TRUST IS EARNED",
                "trust earned slowly over an open-handed welcome",
                "keep some distance until they prove themselves",
                (
                    "keep the newcomer at arm's length for a long season",
                    "test the stranger with a small matter first",
                    "check quietly with others before letting anyone close",
                ),
                "People show who they are slowly, and I wait to see it.",
            ),
            Pole(
                "openness",
                "OPEN DOOR",
                "an open-handed welcome over guarded caution",
                "welcome newcomers in straight away",
                (
                    "invite the stranger home that same evening",
                    "share private worries at the first meeting",
                    "vouch for the newcomer before knowing them well",
                ),
                "I would sooner be fooled now and then than live behind a locked door.",
            ),
        ),
        complications=(
            ("though the person was still a stranger", "when the person is still a stranger"),
            ("with a newcomer to the village involved", "where a newcomer is involved"),
        ),
        training=(
            "a family newly arrived in the village asking to share our well",
            "a travelling preacher asking for a bed for the night",
            "a young clerk asking me to read his private letters",
            "a woman I had met once asking me to keep her jewellery",
        ),
        heldout=(
            HeldOut(
                "a lodger who wanted to join our family at meals",
                "a lodger wishing to eat with the household every evening",
                True,
            ),
            HeldOut(
                "a new colleague who asked me to cover for his absence",
                "a recently hired colleague asking this person to cover for an absence",
                False,
            ),
            HeldOut(
                "a pedlar who offered to carry letters to my sister",
                "a pedlar offering to deliver letters to a relative",
                False,
            ),
            HeldOut(
                "a neighbour's cousin asking to borrow my horse for a week",
                "a neighbour's relative wanting the loan of a horse for seven days",
                True,
            ),
            HeldOut(
                "a young man seeking an introduction to my oldest friends",
                "a young man asking to be introduced to this person's closest friends",
                False,
            ),
        ),
    ),
    Axis(
        key="conflict",
        category="conflict",
        domain="quarrels",
        active="a line has been crossed and someone must answer for it",
        cues=("quarrel", "insult", "dispute"),
        poles=(
            Pole(
                "peace",
                "KEEP THE PEACE",
                "keeping the peace over winning the argument",
                "smooth things over",
                (
                    "let the insult pass and keep the peace",
                    "apologise first even when not at fault",
                    "find a go-between to settle the quarrel",
                ),
                "A quarrel won is usually a friendship lost.",
            ),
            Pole(
                "confrontation",
                "NAME THE WRONG",
                "speaking up over keeping the peace",
                "confront the matter head on",
                (
                    "challenge the offender face to face before everyone",
                    "write a sharp letter setting out the wrong",
                    "refuse to speak to them until they admit the fault",
                ),
                "Silence in the face of a wrong has always felt like agreeing with it.",
            ),
        ),
        complications=(
            ("in the middle of a bitter dispute", "amid a bitter dispute"),
            ("after an insult had been thrown at me", "once an insult has been thrown"),
        ),
        training=(
            "a neighbour who moved the boundary stones of our field",
            "a foreman who mocked my work in front of the others",
            "a brother-in-law who spread lies about my debts",
            "a customer who refused to pay for finished work",
        ),
        heldout=(
            HeldOut(
                "a cousin who claimed credit for my idea at a family gathering",
                "a relative taking credit for this person's idea at a family party",
                True,
            ),
            HeldOut(
                "a landlord who raised the rent without warning", "a landlord putting up the rent with no notice", False
            ),
            HeldOut(
                "a guest who was rude to my wife at my own table",
                "a visitor being rude to this person's spouse over dinner at home",
                True,
            ),
            HeldOut(
                "a fellow member of the choir who took my part without asking",
                "a choir member taking this person's part without permission",
                False,
            ),
            HeldOut(
                "an official who accused me unfairly of cheating",
                "an official making an unjust accusation of cheating",
                True,
            ),
        ),
    ),
    Axis(
        key="learning",
        category="learning",
        domain="learning",
        active="something new has to be mastered",
        cues=("skill", "lessons", "tutor"),
        poles=(
            Pole(
                "guidance",
                "LEARN FROM A MASTER",
                "learning from a master over learning alone",
                "find a teacher",
                (
                    "find a master and copy every step exactly",
                    "enrol in a formal course with examinations",
                    "ask an experienced hand to watch over the first attempts",
                ),
                "Nobody should have to discover alone what a good teacher can show in an afternoon.",
            ),
            Pole(
                "self-teaching",
                "TEACH YOURSELF",
                "learning alone over being taught",
                "learn it alone",
                (
                    "take the thing apart alone until it made sense",
                    "read every book on it late into the night",
                    "practise in secret until good enough to show anyone",
                ),
                "What I have taught myself has stayed with me; what I was told, I forgot.",
            ),
        ),
        complications=(
            ("though the skill was new to me", "when the skill is new to them"),
            ("with lessons on offer nearby", "with lessons available close by"),
        ),
        training=(
            "the need to keep accounts for the family farm",
            "a printing press left to me by an uncle",
            "a book in a language I could not read",
            "a broken clock that nobody in the village could mend",
        ),
        heldout=(
            HeldOut("a new loom bought for the workshop", "a new loom arriving at this person's workshop", True),
            HeldOut(
                "a request to keep the parish records in good order",
                "being asked to look after the parish records",
                False,
            ),
            HeldOut("a fiddle given to me as a gift", "receiving a fiddle as a present", True),
            HeldOut(
                "a post that required knowing how to survey land", "a position that requires land surveying", False
            ),
            HeldOut("an old boat that needed rebuilding", "an old boat in need of repair from the keel up", False),
        ),
    ),
)
