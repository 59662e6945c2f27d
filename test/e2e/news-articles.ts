// Thirty-six short local-news articles for the tests that open many tabs at once (faults.e2e.ts,
// burst.e2e.ts): each is about its own subject, built from that subject's own words (place,
// person, object, activity) set into varied sentences, so no two are near-duplicates of each other.
export interface Subject {
  slug: string;
  title: string;
  place: string;
  person: string;
  thing: string;
  craft: string;
  words: string[];
}

// slug | headline | place | person | object | activity | words of its own
export const SUBJECTS: Subject[] = [
  'lighthouse-lens|Lighthouse lens returns from restoration|Carrick Point|Morag Lindsay|the brass lens frame|polishing prisms|keeper, beacon, fog, gallery, lantern, shipping',
  'beekeepers-swarm|Beekeepers capture a swarm on the bandstand|Elmfield Park|Tobias Grant|a wicker skep|calming bees|hive, queen, honeycomb, pollen, wax, smoker',
  'tidal-pool|Tidal pool reopens after winter storms|Saltcombe Bay|Elspeth Rowe|the concrete sea wall|scrubbing weed|bathers, tide, seaweed, lifeguard, ladder, shingle',
  'chess-tournament|Pensioner wins the county chess tournament|Ashby Library|Walter Pryce|a walnut chessboard|studying endgames|bishop, rook, gambit, checkmate, opponent, clock',
  'bakery-oven|Village bakery fires its wood oven again|Little Hembury|Rosa Okafor|the domed brick oven|kneading sourdough|loaves, flour, crust, yeast, embers, dawn',
  'canal-lock|Volunteers rebuild a crumbling canal lock|Dunmore Wharf|Gareth Hughes|the oak lock gates|pointing masonry|narrowboat, towpath, sluice, paddle, puddle clay, boaters',
  'orchard-survey|Orchard survey finds forgotten apple varieties|Kettering Vale|Aisling Byrne|a grafting knife|naming cultivars|russet, pippin, scion, rootstock, blossom, cider',
  'bell-ringers|Bell ringers mark a century in the tower|St Oswin|Derek Halloran|the tenor bell|ringing changes|ropes, belfry, peal, clapper, ringers, Sunday',
  'allotment-drought|Allotment holders share water through the drought|Fernside Lane|Priya Desai|rainwater butts|mulching beds|courgettes, hosepipe, drought, compost, soil, watering',
  'railway-signal-box|Old signal box becomes a tiny museum|Breckley Junction|Harold Finch|the lever frame|restoring semaphores|railway, levers, token, platform, timetable, steam',
  'choir-competition|Youth choir takes first prize in Cardiff|Pontyglas|Nia Roberts|a folder of scores|rehearsing harmonies|sopranos, altos, conductor, anthem, stage, judges',
  'otter-sighting|Otters seen on the river for the first time in decades|River Tane|Callum Shaw|a trail camera|tracking spraint|otter, holt, riverbank, fish, ecologist, night',
  'market-clock|Market hall clock keeps time again|Oldbury Cross|Imogen Vale|the cast iron dial|oiling escapements|pendulum, weights, chime, hands, winding, tower',
  'sheepdog-trials|Young handler triumphs at the sheepdog trials|Glen Arran|Fergus McKay|a shepherd crook|whistling commands|collie, flock, pen, fetch, hillside, ewes',
  'repair-bicycles|Refugee mechanics run a bicycle workshop|Northgate Yard|Yusuf Haddad|a box of spokes|truing wheels|gears, brakes, chain, saddle, puncture, riders',
  'stargazing-club|Stargazing club builds its own observatory|Moorend Common|Hannah Cole|a reflecting telescope|grinding mirrors|planets, galaxy, dome, eyepiece, Saturn, dark sky',
  'pottery-kiln|Potters share an old brick kiln|Clayhythe|Ivo Marchetti|glazed stoneware jugs|throwing pots|wheel, glaze, firing, slip, clay, studio',
  'lifeboat-launch|New lifeboat launched with a bottle of ginger beer|Port Evan|Siân Llewellyn|the orange hull|training crews|coxswain, rescue, slipway, harbour, waves, pagers',
  'hedgerow-laying|Hedge layers compete in a frosty field|Upper Staunton|Bill Thackeray|a billhook|pleaching hazel|hedgerow, stakes, binders, hawthorn, frost, judges',
  'library-van|Mobile library van clocks its millionth mile|Westmarch Dales|Ruth Adeyemi|the green van|stamping loans|borrowers, shelves, hamlets, novels, driver, route',
  'wild-swimming|Winter swimmers raise money for the hospice|Loch Brae|Kirsty Munro|knitted bobble hats|braving cold water|swimmers, ice, towels, hospice, sponsorship, shoreline',
  'fossil-find|Schoolgirl finds an ichthyosaur on the beach|Charmstone Sands|Poppy Aldridge|a fossilised jaw|splitting shale|fossil, cliffs, Jurassic, museum, vertebrae, hammer',
  'tram-restoration|Heritage tram rolls out after ten years of work|Hallamford Depot|Stanley Burrows|the upper deck seats|rewiring controllers|tram, tracks, conductor, overhead wire, livery, depot',
  'folk-festival|Folk festival returns to the castle green|Duncraig|Marcus Fenwick|a borrowed fiddle|calling dances|ceilidh, accordion, banjo, marquee, tickets, musicians',
  'woodland-charcoal|Charcoal burners revive a woodland craft|Hollins Wood|Agnes Thorley|a steel ring kiln|coppicing ash|charcoal, coppice, barbecue, smoke, logs, woodland',
  'cathedral-glass|Cathedral window glazier retires after forty years|Wellsbury Close|Peter Quayle|leaded medieval panes|cutting coloured glass|window, saints, lead cames, scaffold, light, glazier',
  'community-fridge|Community fridge saves a tonne of food|Riverside Estate|Chantelle Brooks|two donated fridges|sorting surplus groceries|supermarket, surplus, yoghurt, bread, volunteers, waste',
  'horse-ploughing|Horses plough a field at the farming show|Marlow Bottom|Jack Pennington|a pair of Shire horses|guiding the plough|furrow, harness, Shire, ploughman, ploughing, stubble',
  'radio-amateurs|Radio amateurs talk to the space station|Hilltop Scout Hut|Dev Mistry|a homemade antenna|tuning receivers|astronaut, orbit, callsign, frequency, pupils, transmission',
  'seaweed-harvest|Seaweed harvesters start a small business|Inishcarra|Orla Keane|woven baskets of kelp|drying dulse|kelp, dulse, foragers, rocks, salt, harvest',
  'clog-dancers|Clog dancers teach a new generation|Calderbrook|Edith Marsden|wooden soled clogs|stepping rhythms|clogs, dancers, mill, steps, rhythm, workshop',
  'wetland-birds|Bitterns boom again at the restored wetland|Fenmoor Reserve|Oliver Sands|a reed bed hide|counting waders|bittern, reeds, marsh, warden, binoculars, booming',
  'blacksmith-gates|Blacksmith forges new gates for the park|Forge Row|Tamsin Hart|a coal fired forge|hammering scrolls|anvil, iron, tongs, quench, sparks, railings',
  'cider-press|Cider makers press apples in a medieval barn|Somerleigh|Nathaniel Crewe|an ancient screw press|milling fruit|pomace, barrels, ferment, orchard, barn, juice',
  'ferry-timetable|Island ferry adds a winter sailing|Holm Sound|Magnus Isbister|a small roll-on ferry|loading vans|islanders, pier, crossing, sailing, skipper, Orkney',
  'puppet-theatre|Puppet theatre opens in a former chapel|Tenbury Wells|Lucia Ferraro|carved marionettes|stringing puppets|puppets, stage, audience, chapel, strings, performers',
].map((line) => {
  const [slug, title, place, person, thing, craft, words] = line.split('|') as [string, string, string, string, string, string, string];
  return { slug, title, place, person, thing, craft, words: words.split(', ') };
});

type Sentence = (s: Subject) => string;
const w = (s: Subject, i: number): string => s.words[i % s.words.length]!;
const SENTENCES: Sentence[] = [
  (s) => `People in ${s.place} turned out in numbers this week as ${s.person} showed off ${s.thing}, the result of many months spent ${s.craft}.`,
  (s) => `${s.person} said the idea began over a cup of tea, when someone wondered aloud whether anybody still remembered ${s.craft} properly.`,
  (s) => `Talk of ${w(s, 0)} and ${w(s, 1)} filled the afternoon, and several visitors asked how they might help with the ${w(s, 2)} next year.`,
  (s) => `Nobody in ${s.place} could recall a season quite like it: the ${w(s, 3)} kept everyone busy, while the ${w(s, 4)} drew crowds from neighbouring towns.`,
  (s) => `"We had no money and no plan," ${s.person} admitted, "only ${s.thing} and a stubborn belief that ${s.craft} was worth the trouble."`,
  (s) => `Grants from a local trust paid for the ${w(s, 5)}, and a retired teacher kept careful notes about every ${w(s, 0)} and every ${w(s, 3)}.`,
  (s) => `Children from the primary school in ${s.place} drew pictures of ${s.thing}, which now hang in the window of the post office.`,
  (s) => `Experts who travelled to ${s.place} praised the patience involved, noting that ${s.craft} cannot be hurried and rewards those who listen.`,
  (s) => `Photographs of the ${w(s, 1)}, the ${w(s, 4)} and the ${w(s, 2)} have been gathered into a small album for anyone curious to see them.`,
  (s) => `Not everything went smoothly: a wet spring ruined early attempts, and ${s.person} lost a whole month repairing ${s.thing} after an accident.`,
  (s) => `Organisers hope to hold an open day in the autumn, when visitors will be invited to try ${s.craft} for themselves under supervision.`,
  (s) => `Anyone with memories of ${w(s, 5)} or ${w(s, 1)} in ${s.place} is asked to write to the parish office, where a scrapbook is being compiled.`,
  (s) => `Older residents compared the scene with their childhood, when ${w(s, 2)} and ${w(s, 0)} were simply part of ordinary life around ${s.place}.`,
  (s) => `For ${s.person}, the reward is simple: seeing a stranger stop, smile, and ask what on earth ${s.thing} is for.`,
];

/** One article: ten of the sentences (a different choice and order for each subject). */
export function articleHtml(s: Subject, index: number): string {
  const order = SENTENCES.map((_, i) => (i * 5 + index * 3) % SENTENCES.length);
  const chosen = [...new Set(order)].slice(0, 10).map((i) => SENTENCES[i]!(s));
  const paragraphs = [0, 3, 6].map((start, p) => chosen.slice(start, p === 2 ? chosen.length : start + 3).join(' '));
  return `<!DOCTYPE html>
<html lang="en-GB">
<head><meta charset="utf-8"><title>${s.title} | The ${s.place} Gazette</title>
<meta property="og:type" content="article"></head>
<body>
<header><div>The ${s.place} Gazette</div><nav><a href="/">Home</a> <a href="/news/">News</a></nav></header>
<main><article>
<h1>${s.title}</h1>
<p class="byline">By a staff reporter</p>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</article></main>
<footer>&copy; The ${s.place} Gazette</footer>
</body></html>`;
}

/** The path of a subject's article on the test site. */
export const newsPath = (s: Subject): string => `/news/${s.slug}.html`;
/** Every article, by its path. */
export const NEWS_ROUTES: Record<string, string> = Object.fromEntries(SUBJECTS.map((s, i) => [newsPath(s), articleHtml(s, i)]));
