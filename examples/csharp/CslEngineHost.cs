// CslEngineHost: plays a thinker written for the reference ColorShapeLinks
// framework (a subclass of ColorShapeLinks.Common.AI.AbstractThinker, in a
// DLL) in csl-game, by speaking csl-game's engine protocol (docs/engines.md)
// on standard input and output.
//
// Compile it against the ColorShapeLinks.Common.dll your thinker uses, in the
// folder that holds that DLL (so Mono finds it when the host runs):
//
//     mcs -out:DIR/CslEngineHost.exe -r:DIR/ColorShapeLinks.Common.dll CslEngineHost.cs
//
// and declare the engine (the class name may be left out when the DLL holds
// one thinker):
//
//     csl-game match -W mine -R minimax \
//         --engine "mine=mono DIR/CslEngineHost.exe DIR/MyThinker.dll My.Namespace.MyThinker"
//
// The thinker's parameters arrive with the match settings, as in the
// reference. Anything the thinker writes to the console goes to standard
// error, which csl-game shows as the thinker's output.

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using ColorShapeLinks.Common;
using ColorShapeLinks.Common.AI;
using ColorShapeLinks.Common.Session;

namespace CslGame.EngineHost
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length < 1 || args.Length > 2)
            {
                Console.Error.WriteLine(
                    "usage: mono CslEngineHost.exe THINKER.dll [THINKER_CLASS_FULL_NAME]");
                return 2;
            }
            TextWriter protocol = new StreamWriter(
                Console.OpenStandardOutput(), new UTF8Encoding(false));
            protocol.NewLine = "\n";
            // A thinker's Console.WriteLine must not break the protocol.
            Console.SetOut(Console.Error);
            Host host = new Host(protocol, args[0], args.Length == 2 ? args[1] : null);
            host.Run();
            return 0;
        }
    }

    // The protocol loop: one thinker, set up once, then asked for moves.
    public sealed class Host
    {
        private const int Version = 1;
        private readonly TextWriter output;
        private readonly object outputLock = new object();
        private readonly BlockingCollection<string> input = new BlockingCollection<string>();
        private volatile CancellationTokenSource thinking;  // while a Think() runs
        private readonly string dllPath;
        private readonly string className;
        private MatchConfig config;
        private IThinker thinker;
        private Board board;
        private readonly List<string> played = new List<string>();  // moves on board

        public Host(TextWriter output, string dllPath, string className)
        {
            this.output = output;
            this.dllPath = dllPath;
            this.className = className;
        }

        public void Run()
        {
            Thread reader = new Thread(ReadInput);
            reader.IsBackground = true;
            reader.Start();
            string line;
            while ((line = input.Take()) != null)
            {
                string[] words = line.Split(
                    new[] { ' ' }, 2, StringSplitOptions.RemoveEmptyEntries);
                if (words.Length == 0) continue;
                string rest = words.Length > 1 ? words[1] : "";
                switch (words[0])
                {
                    case "csl": Say("csl " + Version + " CslEngineHost"); break;
                    case "setup": Setup(rest); break;
                    case "position": SetPosition(rest); break;
                    case "go": Go(); break;
                    case "quit": return;
                    // "stop" while idle, and lines this host does not know: ignored.
                }
            }
        }

        // Queue each input line, but act on "stop" at once (the main thread
        // may be waiting for the thinker); the end of input (null) means quit.
        private void ReadInput()
        {
            string line;
            while ((line = Console.In.ReadLine()) != null)
            {
                if (line.Trim() != "stop") input.Add(line);
                else if (thinking != null) thinking.Cancel();
            }
            input.Add(null);
        }

        private void Say(string line)
        {
            lock (outputLock)
            {
                output.WriteLine(line);
                output.Flush();
            }
        }

        private static string OneLine(string text)
        {
            return string.Join(" ", (text ?? "").Split(
                new[] { '\r', '\n' }, StringSplitOptions.RemoveEmptyEntries));
        }

        private void Setup(string args)
        {
            string[] words = args.Split(new[] { ' ' }, 7);
            int[] numbers = new int[6];
            if (words.Length < 6 || !Enumerable.Range(0, 6).All(
                    i => int.TryParse(words[i], out numbers[i])))
            {
                Say("error cannot read the settings '" + args + "'");
                return;
            }
            config = new MatchConfig(numbers[0], numbers[1], numbers[2], numbers[3],
                numbers[4], numbers[5]);
            board = null;
            try
            {
                string fqn = ThinkerClass(Assembly.LoadFrom(dllPath));
                ThinkerPrototype prototype = new ThinkerPrototype(
                    fqn, words.Length > 6 ? words[6] : "", config);
                thinker = prototype.Create();
                thinker.ThinkingInfo += text => Say("info " + OneLine(text));
                Say("ready " + OneLine(thinker.ToString()));
            }
            catch (Exception e)
            {
                Exception cause = e is TargetInvocationException ? e.InnerException : e;
                Say("error " + OneLine(cause.GetType().Name + ": " + cause.Message));
            }
        }

        // The class named on the command line, or the DLL's only thinker.
        private string ThinkerClass(Assembly assembly)
        {
            if (className != null) return className;
            string[] found = assembly.GetTypes()
                .Where(t => typeof(AbstractThinker).IsAssignableFrom(t) && !t.IsAbstract
                    && t.GetConstructor(Type.EmptyTypes) != null)
                .Select(t => t.FullName).ToArray();
            if (found.Length == 1) return found[0];
            throw new ArgumentException(found.Length == 0
                ? "no thinker in " + dllPath
                : "name one of the thinkers in " + dllPath + ": " + string.Join(", ", found));
        }

        // Usually the last position and two more moves: play just those on
        // the board kept from last time (a new Board works out its win
        // corridors, which takes a while on a large board).
        private void SetPosition(string line)
        {
            if (config == null) return;
            string[] moves = line.Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
            if (board == null || moves.Length < played.Count
                || !played.SequenceEqual(moves.Take(played.Count)))
            {
                board = new Board(config.Rows, config.Cols, config.WinSequence,
                    config.RoundPiecesPerPlayer, config.SquarePiecesPerPlayer);
                played.Clear();
            }
            foreach (string move in moves.Skip(played.Count).ToArray())
            {
                PShape shape = move.EndsWith("s") ? PShape.Square : PShape.Round;
                board.DoMove(shape, int.Parse(move.Substring(0, move.Length - 1)));
                played.Add(move);
            }
        }

        // Think on a task, which "stop" cancels through the reader thread.
        private void Go()
        {
            if (thinker == null || board == null)
            {
                Say("error no thinker or no position to think about");
                return;
            }
            Board copy = board.Copy();
            thinking = new CancellationTokenSource();
            CancellationToken token = thinking.Token;
            Task<FutureMove> task = Task.Run(() => thinker.Think(copy, token));
            try
            {
                task.Wait();
            }
            catch (AggregateException)
            {
                // the thinker raised: told below
            }
            thinking = null;
            if (task.IsFaulted)
            {
                Exception e = task.Exception.InnerException;
                Say("error " + OneLine(e.GetType().Name + ": " + e.Message));
            }
            else if (task.IsCanceled || task.Result.IsNoMove)
            {
                Say("move none");
            }
            else
            {
                FutureMove move = task.Result;
                Say("move " + move.column + (move.shape == PShape.Round ? "r" : "s"));
            }
        }
    }
}
